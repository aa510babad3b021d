//! fio's steady-state detection on a run: samples every `ss_interval`, judged over the last
//! `ss_dur`, stopping the job at the sample where the criterion first holds.

use ssdtwin_core::config::{build, load_profile};
use ssdtwin_core::os::{Host, bare_host};
use ssdtwin_core::ssd::{FillPattern, Ssd};
use ssdtwin_core::workload::fio::parse_command_line;
use ssdtwin_core::workload::{RunOptions, RunResult, run};

fn run_bare(args: &str) -> RunResult {
    let mut dev = Ssd::new(build(&load_profile("generic-tlc-1tb").unwrap()).unwrap());
    dev.fill(FillPattern::Sequential { percent: 1.0, command_bytes: 1 << 17 }).unwrap();
    let set = parse_command_line(&args.split_whitespace().map(String::from).collect::<Vec<_>>()).unwrap();
    let opts = RunOptions { log_dir: std::env::temp_dir(), ..RunOptions::default() };
    run(&mut Host::new(&mut dev, bare_host()), &set, &opts, &mut |_| true).unwrap()
}

const JOB: &str = "--name=r --rw=randread --bs=4k --size=1g --ioengine=libaio --iodepth=8 --runtime=2 --time_based \
                   --ss_interval=100ms --ss_dur=300ms";

#[test]
fn a_steady_job_stops_at_its_first_full_window() {
    let r = run_bare(&format!("{JOB} --ss=iops:10%"));
    let job = &r.jobs[0];
    let ss = job.steadystate.as_ref().unwrap();
    assert!(ss.attained);
    assert_eq!(ss.iops.len(), 3);
    assert_eq!(job.runtime_ns(), 300_000_000, "stopped at the third sample");
    // The samples are the I/Os completed in each 100 ms, as per-second rates.
    let ios = job.dirs[0].total_ios as f64;
    let sampled: u64 = ss.iops.iter().sum();
    assert!((sampled as f64 / 10.0 - ios).abs() <= 3.0 * 8.0, "{sampled} vs {ios}");
    let mean = sampled as f64 / 3.0;
    let deviation = ss.iops.iter().map(|&y| (y as f64 - mean).abs()).fold(0.0, f64::max);
    assert!((ss.criterion - 100.0 * deviation / mean).abs() < 1e-9);
    assert!(ss.bw.iter().zip(&ss.iops).all(|(&bw, &iops)| bw == iops * 4096));
}

#[test]
fn a_criterion_that_never_holds_runs_to_the_runtime() {
    // No deviation is below 0: fio's `criterion < limit` never holds.
    let r = run_bare(&format!("{JOB} --ss=iops:0"));
    let job = &r.jobs[0];
    let ss = job.steadystate.as_ref().unwrap();
    assert!(!ss.attained);
    assert_eq!(job.runtime_ns(), 2_000_000_000);
    assert_eq!(ss.iops.len(), 3, "the latest window");
}

#[test]
fn samples_start_one_interval_after_ss_ramp() {
    let r = run_bare(&format!("{JOB} --ss=iops:10% --ss_ramp=200ms"));
    // Samples at 300, 400 and 500 ms: steady at 500 ms.
    assert_eq!(r.jobs[0].runtime_ns(), 500_000_000);
}

#[test]
fn group_reporting_judges_the_sum_of_the_clones() {
    let r = run_bare(&format!("{JOB} --ss=iops_slope:5% --numjobs=2 --group_reporting"));
    assert!(r.jobs[0].steadystate.is_none(), "fio keeps a group's data on its last clone");
    let ss = r.jobs[1].steadystate.as_ref().unwrap();
    assert!(ss.attained);
    let ios: u64 = r.jobs.iter().map(|j| j.dirs[0].total_ios).sum();
    let sampled: u64 = ss.iops.iter().sum();
    assert!((sampled as f64 / 10.0 - ios as f64).abs() <= 3.0 * 16.0, "{sampled} vs {ios}");
    assert!(r.jobs.iter().all(|j| j.runtime_ns() == 300_000_000));
}
