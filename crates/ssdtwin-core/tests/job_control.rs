//! fio's job control between jobs: `wait_for` (a job starts when a named earlier job has
//! finished) and `exitall` with `exit_what` (a finishing job ends others), as fio's
//! backend and `fio_terminate_threads` do.

use ssdtwin_core::config::{build, load_profile};
use ssdtwin_core::os::{Host, HostConfig, bare_host, load_host};
use ssdtwin_core::ssd::{FillPattern, Ssd};
use ssdtwin_core::workload::fio::parse_job_text;
use ssdtwin_core::workload::{JobResult, RunOptions, RunResult, run};
use std::path::Path;

fn run_text(text: &str) -> RunResult {
    run_text_on(text, bare_host())
}

fn run_text_on(text: &str, host: HostConfig) -> RunResult {
    let mut dev = Ssd::new(build(&load_profile("generic-tlc-1tb").unwrap()).unwrap());
    dev.fill(FillPattern::Sequential { percent: 1.0, command_bytes: 1 << 17 }).unwrap();
    let set = parse_job_text(text, "jobs.fio", Path::new(".")).unwrap();
    let opts = RunOptions { log_dir: std::env::temp_dir(), ..RunOptions::default() };
    run(&mut Host::new(&mut dev, host), &set, &opts, &mut |_| true).unwrap()
}

fn clones<'a>(r: &'a RunResult, name: &str) -> Vec<&'a JobResult> {
    r.jobs.iter().filter(|j| j.name == name).collect()
}

const GLOBAL: &str = "[global]\nioengine=libaio\niodepth=4\nbs=4k\nsize=1g\nrw=randread\n";

#[test]
fn wait_for_starts_a_job_when_the_named_one_ends() {
    // `b` waits for both clones of `a` (20 ms); `c` runs beside them from the start.
    let r = run_text(&format!(
        "{GLOBAL}[a]\nnumjobs=2\nruntime=20ms\ntime_based\n[b]\nwait_for=a\nruntime=10ms\ntime_based\n\
         [c]\nruntime=5ms\ntime_based\n"
    ));
    let a_end = clones(&r, "a").iter().map(|j| j.end_ns).max().unwrap();
    let (b, c) = (clones(&r, "b")[0], clones(&r, "c")[0]);
    assert!(a_end >= 20_000_000);
    // b starts once a's last clone has finished: its deadline, then its last I/O.
    assert!(b.start_ns >= a_end && b.start_ns < a_end + 1_000_000, "{} vs {a_end}", b.start_ns);
    assert_eq!(b.runtime_ns(), 10_000_000, "and runs its own runtime from there");
    assert_eq!(c.start_ns, 0);
    // A startdelay longer than the wait still counts from the run's start, as in fio.
    let r = run_text(&format!(
        "{GLOBAL}[a]\nruntime=5ms\ntime_based\n[b]\nwait_for=a\nstartdelay=30ms\nruntime=5ms\ntime_based\n"
    ));
    assert_eq!(clones(&r, "b")[0].start_ns, 30_000_000);
}

#[test]
fn wait_for_must_name_a_unique_earlier_job() {
    let err = |text: &str| parse_job_text(text, "jobs.fio", Path::new(".")).unwrap_err().to_string();
    assert_eq!(err("[a]\nwait_for=b\n[b]\n"), "jobs.fio: wait_for=b: 'b' must come before 'a'");
    assert_eq!(err("[a]\nwait_for=zz\n"), "jobs.fio: wait_for=zz: there is no job 'zz'");
    assert_eq!(
        err("[a]\n[a]\n[b]\nwait_for=a\n"),
        "jobs.fio: wait_for=a: 2 jobs are named 'a'; the waitee's name must be unique"
    );
}

#[test]
fn exitall_ends_the_finishing_job_s_group() {
    // `short` ends after 10 ms; `long` (same group) would run 1 s; `other` (a new group)
    // is not ended by exit_what=group.
    let r = run_text(&format!(
        "{GLOBAL}exitall\n[short]\nruntime=10ms\ntime_based\n[long]\nruntime=1s\ntime_based\n\
         [other]\nnew_group\nruntime=30ms\ntime_based\n"
    ));
    let end = |name: &str| clones(&r, name)[0].end_ns;
    assert!(end("short") >= 10_000_000 && end("short") < 10_500_000);
    // `long` stops issuing when `short` finishes and ends with its last I/O.
    assert!(end("long") >= end("short") && end("long") < end("short") + 1_000_000, "{}", end("long"));
    assert!(end("other") >= 30_000_000, "another group runs on");
}

#[test]
fn exitall_stops_a_job_whose_thread_sleeps_on_a_full_queue() {
    // Through a host, `long`'s thread sleeps on its full queue when `short` ends: once
    // stopped, a wakeup only reaps, and the job ends with its last I/O.
    let r = run_text_on(
        &format!("{GLOBAL}exitall\n[short]\nruntime=10ms\ntime_based\n[long]\nruntime=1s\ntime_based\n"),
        load_host("linux-6.1", &[]).unwrap(),
    );
    let end = |name: &str| clones(&r, name)[0].end_ns;
    assert!(end("short") >= 10_000_000 && end("short") < 10_500_000);
    assert!(end("long") >= end("short") && end("long") < end("short") + 1_000_000, "{}", end("long"));
}

#[test]
fn exit_what_all_also_ends_jobs_not_started() {
    let r = run_text(&format!(
        "{GLOBAL}[short]\nexitall\nexit_what=all\nruntime=10ms\ntime_based\n[long]\nruntime=1s\ntime_based\n\
         [later]\nstonewall\nruntime=1s\ntime_based\n"
    ));
    let later = clones(&r, "later")[0];
    assert_eq!(later.dirs[0].total_ios, 0, "ended as it started");
    assert!(clones(&r, "long")[0].end_ns < 11_000_000);
    // exit_what=stonewall ends what runs now, and the next phase still runs.
    let r = run_text(&format!(
        "{GLOBAL}[short]\nexitall\nexit_what=stonewall\nruntime=10ms\ntime_based\n[long]\nnew_group\nruntime=1s\n\
         time_based\n[later]\nstonewall\nruntime=20ms\ntime_based\n"
    ));
    assert!(clones(&r, "long")[0].end_ns < 11_000_000, "another group, but running: ended");
    assert_eq!(clones(&r, "later")[0].runtime_ns(), 20_000_000);
}
