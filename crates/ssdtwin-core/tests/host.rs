//! The host stack over the twin: each engine's CPU costs on the host's cores and fio's
//! engine semantics. Every expectation is computed from the host profile's costs (read back
//! from the built `HostConfig`), not from a run.

use crate::common::job;
use ssdtwin_core::block::{BlockDevice, Opcode};
use ssdtwin_core::config::{LoadedProfile, apply_overrides, build, ideal_overrides, load_profile};
use ssdtwin_core::engine::SimDuration;
use ssdtwin_core::os::{
    CompletionPath, CoreId, DiskStats, Host, HostConfig, IoDone, IoRequest, bare_host, build_host,
    ideal_host_overrides, load_host,
};
use ssdtwin_core::ssd::{FillPattern, Ssd};
use ssdtwin_core::workload::{JobSet, JobSpec, RunOptions, RunResult, RwPattern, SizeSpec, run};

fn filled_generic() -> Ssd {
    let mut dev = Ssd::new(crate::common::generic_ideal());
    dev.fill(FillPattern::Sequential { percent: 1.0, command_bytes: 1 << 17 }).unwrap();
    dev
}

/// [`filled_generic`] with profile overrides.
fn filled_generic_with(overrides: &[&str]) -> Ssd {
    let mut p = load_profile("generic-tlc-1tb").unwrap();
    let mut all = ideal_overrides(&p);
    all.extend(overrides.iter().map(ToString::to_string));
    apply_overrides(&mut p, &all).unwrap();
    let mut dev = Ssd::new(build(&p).unwrap());
    dev.fill(FillPattern::Sequential { percent: 1.0, command_bytes: 1 << 17 }).unwrap();
    dev
}

/// A shipped host with every wakeup at its mean cost, so that paths add up exactly.
fn host(name: &str) -> HostConfig {
    ideal_host_with(name, &[])
}

/// [`host`] with `sets` on top.
fn ideal_host_with(name: &str, sets: &[&str]) -> HostConfig {
    let mut all = ideal_host_overrides();
    all.extend(sets.iter().map(ToString::to_string));
    load_host(name, &all).unwrap()
}

fn timed(mut j: JobSpec, engine: &str, ms: u64) -> JobSpec {
    j.ioengine = engine.into();
    j.size = Some(SizeSpec::Bytes(1 << 30));
    j.runtime_ns = Some(ms * 1_000_000);
    j.time_based = true;
    j
}

fn run_jobs(dev: &mut Ssd, host: HostConfig, jobs: Vec<JobSpec>) -> RunResult {
    let set = JobSet { global_options: vec![], jobs };
    let opts = RunOptions { log_dir: std::env::temp_dir(), ..RunOptions::default() };
    run(&mut Host::new(dev, host), &set, &opts, &mut |_| true).unwrap()
}

fn iops(r: &RunResult) -> f64 {
    r.jobs.iter().map(|j| j.dirs[0].iops() + j.dirs[1].iops()).sum()
}

fn ns(d: SimDuration) -> f64 {
    d.as_ns() as f64
}

/// CPU time of one I/O of an asynchronous engine at saturation on `h`, ns: fio's work,
/// one submit call per I/O (batch 1), the interrupt path, one reap call per I/O.
fn async_cost_per_io(h: &HostConfig, engine: &str) -> f64 {
    let e = h.engine(engine).unwrap();
    ns(h.fio_prep + h.fio_complete)
        + ns(e.submit_call + e.submit_io + h.block_submit)
        + ns(h.irq + h.block_complete + e.complete_io)
        + ns(e.reap_call + e.reap_io)
}

// ---- synchronous engines ----

#[test]
fn psync_ignores_iodepth() {
    let mut a = filled_generic();
    let mut b = filled_generic();
    let mut shallow = timed(job("r", RwPattern::RandRead, 4096, 1), "psync", 30);
    let ra = run_jobs(&mut a, host("linux-6.1"), vec![shallow.clone()]);
    shallow.iodepth = 32;
    let rb = run_jobs(&mut b, host("linux-6.1"), vec![shallow]);
    assert_eq!(ra.jobs[0].dirs, rb.jobs[0].dirs);
    assert!(rb.jobs[0].iodepth_level[1..].iter().all(|&n| n == 0), "{:?}", rb.jobs[0].iodepth_level);
}

/// Clat percentiles `ps` of QD1 psync reads for a second on the ideal drive, on linux-6.1
/// with `host_set` on top of its shipped profile.
fn qd1_read_percentiles(host_set: &[&str], ps: &[f64]) -> (Vec<f64>, f64) {
    let h = load_host("linux-6.1", &host_set.iter().map(ToString::to_string).collect::<Vec<_>>()).unwrap();
    let r = run_jobs(&mut filled_generic(), h, vec![timed(job("r", RwPattern::RandRead, 4096, 1), "psync", 1000)]);
    let d = &r.jobs[0].dirs[0];
    (d.latency.clat_hist.percentiles(ps).iter().map(|&v| v as f64).collect(), d.latency.clat.mean())
}

#[test]
fn a_busy_core_delays_a_share_of_wakeups_by_an_exponential_wait() {
    // On the ideal drive every read takes the same time: the spread is the host's. With 10 %
    // of wakeups waiting 20 us on average, P(wait > x) = 0.1 e^(-x / 20 us): the p99 is
    // 20 us × ln 10 = 46 us above the p50, and the mean 2 us above the ideal host's.
    let busy = ["kernel.wakeup_cv=0", "kernel.preempt_chance=0.1", "kernel.preempt_us=20"];
    let (p, mean) = qd1_read_percentiles(&busy, &[50.0, 99.0]);
    let (ideal, ideal_mean) = qd1_read_percentiles(&["kernel.wakeup_cv=0", "kernel.preempt_chance=0"], &[50.0]);
    let bucket = 1.0 / 64.0;
    assert!((p[0] / ideal[0] - 1.0).abs() <= bucket, "p50 {} vs {}", p[0], ideal[0]);
    let tail_us = (p[1] - p[0]) / 1e3;
    assert!((tail_us / (20.0 * 10f64.ln()) - 1.0).abs() < 0.15, "p99 - p50 = {tail_us} us");
    assert!(((mean - ideal_mean) / 1e3 - 2.0).abs() < 0.4, "mean moved {} us", (mean - ideal_mean) / 1e3);
}

#[test]
fn the_shipped_host_keeps_the_mean_and_spreads_the_wakeups() {
    // linux-6.1's calls (cv 0.2, 1 % held up 8 us) and wakeups (0.9 us, cv 0.3, 0.1 % held
    // up 8 us): a read's clat holds one wakeup and one call (the reap; psync's submit is in
    // its hidden slat), so the mean moves by (1 % + 0.1 %) × 8 us = 88 ns, the body spreads
    // by a few hundred ns, and about one read in a hundred waits.
    let h = load_host("linux-6.1", &[]).unwrap();
    let j = h.cpu_jitter;
    let expected_ns = (j.call_preempt_chance + j.preempt_chance) * j.preempt_mean.as_ns() as f64;
    let ps = [1.0, 50.0, 99.0];
    let (shipped, mean) = qd1_read_percentiles(&[], &ps);
    let (ideal, ideal_mean) =
        qd1_read_percentiles(&ideal_host_overrides().iter().map(String::as_str).collect::<Vec<_>>(), &ps);
    // The sampling error of the mean: 16 K reads, each wait's sd about 1.1 us.
    assert!((mean - ideal_mean - expected_ns).abs() < 30.0, "mean {mean} vs {ideal_mean} + {expected_ns}");
    assert_eq!(ideal[0], ideal[2], "the ideal host has no spread");
    assert!(shipped[0] < shipped[2], "the shipped host has one: {shipped:?}");
}

#[test]
fn a_qd1_sync_read_is_the_drive_plus_the_host_path() {
    let h = host("linux-6.1");
    let e = h.engine("psync").unwrap().clone();
    let j = timed(job("r", RwPattern::RandRead, 4096, 1), "psync", 30);
    let bare = run_jobs(&mut filled_generic(), bare_host(), vec![j.clone()]);
    let hosted = run_jobs(&mut filled_generic(), h.clone(), vec![j]);
    let (b, d) = (&bare.jobs[0].dirs[0], &hosted.jobs[0].dirs[0]);
    // Issue → submit call → block layer → drive → interrupt → wake → return.
    let path = ns(e.submit_call + e.submit_io + h.block_submit)
        + ns(h.irq + h.block_complete + e.complete_io)
        + ns(h.wakeup)
        + ns(e.reap_call);
    let expected = b.latency.clat.mean() + path;
    assert!((d.latency.clat.mean() - expected).abs() < 2.0, "clat {} expected {expected}", d.latency.clat.mean());
    // fio gives synchronous engines no submission latency; lat adds fio's preparation.
    assert_eq!(d.latency.slat.n, 0);
    assert!((d.latency.lat.mean() - d.latency.clat.mean() - ns(h.fio_prep)).abs() < 1.0);
}

#[test]
fn a_sync_job_sleeps_once_per_io_and_its_cpu_time_is_its_costs() {
    let h = host("linux-6.1");
    let e = h.engine("psync").unwrap().clone();
    let r =
        run_jobs(&mut filled_generic(), h.clone(), vec![timed(job("r", RwPattern::RandRead, 4096, 1), "psync", 30)]);
    let j = &r.jobs[0];
    let n = j.dirs[0].total_ios;
    // One context switch per I/O (blocked in pread), give or take the one cut by the deadline.
    assert!(j.ctx.abs_diff(n) <= 1, "ctx {} ios {n}", j.ctx);
    let user = ns(h.fio_prep + h.fio_complete);
    let sys = ns(e.submit_call + e.submit_io + h.block_submit + h.wakeup + e.reap_call);
    let per_io = |total: u64| total as f64 / n as f64;
    assert!((per_io(j.usr_ns) - user).abs() < user * 0.01, "usr per io {}", per_io(j.usr_ns));
    assert!((per_io(j.sys_ns) - sys).abs() < sys * 0.01, "sys per io {}", per_io(j.sys_ns));
}

/// A psync job that thinks `think_us` after every read, on linux-6.1 with `host_set`.
fn thinking_job(host_name: &str, host_set: &[&str], think_us: u64) -> (RunResult, HostConfig) {
    let mut sets: Vec<String> = ideal_host_overrides();
    sets.retain(|s| !s.starts_with("kernel.timer_"));
    sets.extend(host_set.iter().map(ToString::to_string));
    let h = load_host(host_name, &sets).unwrap();
    let mut j = timed(job("r", RwPattern::RandRead, 4096, 1), "psync", 100);
    j.thinktime_ns = think_us * 1_000;
    (run_jobs(&mut filled_generic(), h.clone(), vec![j]), h)
}

#[test]
fn fio_spins_a_wait_shorter_than_the_timer_granularity_and_sleeps_a_longer_one_on_time() {
    // fio measures the shortest sleep when it starts (linux-6.1: 50 us slack plus the
    // wakeup), spins a wait shorter than that and sleeps a longer one that much less: a
    // 200 us think is a sleep that ends on time, a 20 us one is spun whole, without a
    // context switch. The I/O rate is the same as with exact timers either way.
    for think_us in [20, 200] {
        let (slack, h) = thinking_job("linux-6.1", &[], think_us);
        let (exact, _) = thinking_job("linux-6.1", &["kernel.timer_slack_us=0"], think_us);
        let g = ns(h.sleep_timer.granularity(h.wakeup));
        assert!((g - 50_900.0).abs() < 1.0, "{g}");
        let (s, e) = (&slack.jobs[0], &exact.jobs[0]);
        let reads = s.dirs[0].total_ios;
        assert!((reads as f64 / e.dirs[0].total_ios as f64 - 1.0).abs() < 0.002, "{reads} vs {}", e.dirs[0].total_ios);
        // One switch per read (blocked in pread), and one per think that sleeps.
        let thinks_sleep = think_us as f64 * 1e3 >= g;
        assert!(s.ctx.abs_diff(if thinks_sleep { 2 * reads } else { reads }) <= 2, "{think_us} us: ctx {}", s.ctx);
        assert!(e.ctx.abs_diff(2 * reads) <= 2, "exact timers sleep every think: ctx {}", e.ctx);
        let spun_per_read = (s.usr_ns as f64 - e.usr_ns as f64) / reads as f64;
        let expected = if thinks_sleep { 0.0 } else { think_us as f64 * 1e3 };
        assert!((spun_per_read - expected).abs() < 100.0, "{think_us} us: spun {spun_per_read} ns per read");
    }
}

#[test]
fn a_tick_based_timer_makes_fio_spin_every_wait_shorter_than_a_tick() {
    // windows-10's Sleep ends on the 15.625 ms clock tick: fio spins a 5 ms think whole, so
    // its core is busy for all of it.
    let (r, _) = thinking_job("windows-10", &[], 5_000);
    let j = &r.jobs[0];
    let reads = j.dirs[0].total_ios;
    assert!(reads > 10, "{reads}");
    assert!(j.usr_ns as f64 >= reads as f64 * 5e6 * 0.99, "usr {} ns for {reads} thinks", j.usr_ns);
}

#[test]
fn submission_latency_spreads_by_the_hosts_call_variation() {
    // libaio at QD8: each submit call costs its mean times a log-normal factor (cv 0.2),
    // and 1 % are held up 8 us on average: slat's sd is that of the sum, sqrt((0.2 m)² +
    // 0.01 × 2 × (8 us)² − (0.01 × 8 us)²), and the mean moves by 80 ns.
    let shipped = load_host("linux-6.1", &[]).unwrap();
    let ideal = host("linux-6.1");
    let j = timed(job("r", RwPattern::RandRead, 4096, 8), "libaio", 200);
    let spread = run_jobs(&mut filled_generic(), shipped.clone(), vec![j.clone()]);
    let flat = run_jobs(&mut filled_generic(), ideal, vec![j]);
    let (s, f) = (&spread.jobs[0].dirs[0].latency.slat, &flat.jobs[0].dirs[0].latency.slat);
    assert_eq!(f.min, f.max, "the ideal host's submissions all cost the same");
    let m = f.mean();
    let c = shipped.cpu_jitter;
    let (p, t) = (c.call_preempt_chance, c.preempt_mean.as_ns() as f64);
    let expected_sd = ((c.call_cv * m).powi(2) + p * 2.0 * t * t - (p * t).powi(2)).sqrt();
    assert!((s.stddev() / expected_sd - 1.0).abs() < 0.1, "sd {} vs {expected_sd}", s.stddev());
    assert!((s.mean() - m - p * t).abs() < 20.0, "mean {} vs {m} + {}", s.mean(), p * t);
}

#[test]
fn interrupt_coalescing_holds_a_lone_completion_for_its_time() {
    // Feature 08h with TIME 100 us and THR 7 (8 entries): a QD1 read's entry is never
    // joined by seven others, so each waits the whole aggregation time; THR 0 is off.
    let qd1 = |sets: &[&str]| {
        let h = ideal_host_with("linux-6.1", sets);
        let r = run_jobs(&mut filled_generic(), h, vec![timed(job("r", RwPattern::RandRead, 4096, 1), "psync", 50)]);
        r.jobs[0].dirs[0].latency.clat.mean()
    };
    let off = qd1(&[]);
    let held = qd1(&["kernel.nvme_int_coalesce_time_us=100", "kernel.nvme_int_coalesce_thr=7"]);
    assert!((held - off - 100_000.0).abs() < 1.0, "{held} vs {off} + 100 us");
    assert_eq!(qd1(&["kernel.nvme_int_coalesce_time_us=100", "kernel.nvme_int_coalesce_thr=0"]), off);
}

#[test]
fn interrupt_coalescing_at_depth_takes_fewer_interrupts_and_refuses_odd_times() {
    // At QD32 entries come faster than the aggregation time: eight share each interrupt,
    // so the interrupts' entry cost falls about eightfold.
    let irq_entries = |sets: &[&str]| {
        let h = ideal_host_with("linux-6.1", sets);
        let irq = ns(h.irq);
        let r = run_jobs(&mut filled_generic(), h, vec![timed(job("r", RwPattern::RandRead, 4096, 32), "libaio", 50)]);
        let ios = r.jobs[0].dirs[0].total_ios as f64;
        (r.groups[0].counters_end.get("host.cpu_irq_ns").unwrap() as f64, irq, ios)
    };
    let (off_ns, irq, off_ios) = irq_entries(&[]);
    let (held_ns, _, held_ios) =
        irq_entries(&["kernel.nvme_int_coalesce_time_us=200", "kernel.nvme_int_coalesce_thr=7"]);
    let h = host("linux-6.1");
    let work = ns(h.block_complete + h.engine("libaio").unwrap().complete_io);
    // Each completion's handler work stays; the entries are what coalescing saves.
    let entries = |total: f64, ios: f64| (total - ios * work) / irq;
    let (off_entries, held_entries) = (entries(off_ns, off_ios), entries(held_ns, held_ios));
    assert!(held_entries < off_entries / 4.0, "{held_entries} interrupts vs {off_entries}");
    assert!((held_entries / (held_ios / 8.0) - 1.0).abs() < 0.1, "{held_entries} interrupts for {held_ios} reads");
    let err = load_host("linux-6.1", &["kernel.nvme_int_coalesce_time_us=150".to_string()]).unwrap_err().to_string();
    assert!(err.contains("nvme_int_coalesce_time_us") && err.contains("multiples of 100"), "{err}");
}

// ---- CPU limits ----

#[test]
fn a_cpu_bound_job_saturates_at_one_core_over_its_cost() {
    let h = host("linux-6.1");
    let j = timed(job("r", RwPattern::RandRead, 4096, 128), "libaio", 100);
    let bare = iops(&run_jobs(&mut filled_generic(), bare_host(), vec![j.clone()]));
    let hosted = iops(&run_jobs(&mut filled_generic(), h.clone(), vec![j]));
    let ceiling = 1e9 / async_cost_per_io(&h, "libaio");
    assert!(bare > ceiling * 1.3, "the drive alone must be faster than the CPU: {bare} vs {ceiling}");
    assert!((hosted - ceiling).abs() < ceiling * 0.02, "IOPS {hosted}, ceiling {ceiling}");
}

#[test]
fn threads_on_one_core_share_it_and_threads_on_two_cores_do_not() {
    // The null engine touches no device: pure CPU work, fio's own.
    let h = host("linux-6.1");
    let per_io = ns(h.fio_prep + h.fio_complete);
    let mut j = timed(job("n", RwPattern::RandRead, 4096, 8), "null", 20);
    j.numjobs = 2;
    j.cpus_allowed = Some(vec![0]);
    let one_core = iops(&run_jobs(&mut filled_generic(), h.clone(), vec![j.clone()]));
    j.cpus_allowed = Some(vec![0, 1]);
    let two_cores = iops(&run_jobs(&mut filled_generic(), h, vec![j]));
    assert!((one_core - 1e9 / per_io).abs() < 1e9 / per_io * 0.02, "one core: {one_core}");
    assert!((two_cores - 2e9 / per_io).abs() < 2e9 / per_io * 0.02, "two cores: {two_cores}");
}

#[test]
fn a_thread_alone_on_its_core_runs_the_same_whether_it_sees_completions_ahead_or_not() {
    // A thread alone on its core books the wakeup a completion brings when the drive posts
    // it, ahead of the interrupt handler's end (`ThreadState::sees_ahead`); `exitall`
    // turns that off, as it may stop a clone at any time, and changes nothing else where
    // every clone ends at its runtime. fio's results must be the same either way: with a
    // core of its own for each interrupt queue, and with two queues, where the handlers of
    // eight cores' I/O run on one core, under the thread that lives there; and on a host
    // where only interrupts cost time.
    let mut alone = timed(job("alone", RwPattern::RandRw, 4096, 8), "libaio", 20);
    alone.numjobs = 3;
    alone.cpus_allowed = Some(vec![0, 1, 2]);
    alone.cpus_split = true;
    let mut shared = timed(job("shared", RwPattern::RandRead, 4096, 4), "libaio", 20);
    shared.numjobs = 2;
    shared.cpus_allowed = Some(vec![3]);
    let mut sync = timed(job("sync", RwPattern::RandRead, 4096, 1), "psync", 20);
    sync.cpus_allowed = Some(vec![4]);
    let jobs: Vec<JobSpec> =
        [alone, shared, sync].into_iter().map(|j| JobSpec { ramp_time_ns: 2_000_000, ..j }).collect();
    let exiting: Vec<JobSpec> = jobs.iter().map(|j| JobSpec { exitall: true, ..j.clone() }).collect();
    // A host whose threads' work costs nothing and whose interrupts do not: the thread's
    // wakeup would take effect the moment it is booked, so it is not booked ahead.
    let text = "[host]\ndescription = \"only interrupts cost\"\nos = \"linux\"\n[cpu]\ncores = 8\n\
                dram_gib = 1.0\n[kernel]\nirq_ns = 900\n[engines.libaio]\nkind = \"async\"\n\
                [engines.psync]\nkind = \"sync\"\n";
    let irq_only = build_host(&LoadedProfile::from_str(text, "irq-only", "irq-only").unwrap()).unwrap();
    for (queues, h) in [
        ("link.io_queues=64", host("linux-6.1")),
        ("link.io_queues=2", host("linux-6.1")),
        ("link.io_queues=64", irq_only),
    ] {
        let ahead = run_jobs(&mut filled_generic_with(&[queues]), h.clone(), jobs.clone());
        let at_handler_end = run_jobs(&mut filled_generic_with(&[queues]), h, exiting.clone());
        assert!(ahead.jobs.iter().all(|j| j.dirs[0].total_ios > 100), "{queues}: every clone ran");
        // The gist first (a readable message), then everything fio reports.
        let gist = |r: &RunResult| -> Vec<(u64, u64, u64, u64, u64)> {
            r.jobs.iter().map(|j| (j.dirs[0].total_ios, j.dirs[1].total_ios, j.usr_ns, j.sys_ns, j.ctx)).collect()
        };
        assert_eq!(gist(&ahead), gist(&at_handler_end), "{queues}: I/Os read and written, usr, sys, ctx");
        assert!(ahead.jobs == at_handler_end.jobs, "{queues}: latencies");
        assert_eq!(ahead.disk, at_handler_end.disk, "{queues}");
    }
}

#[test]
fn batched_submission_and_reaping_cost_less_per_io() {
    let h = host("linux-6.1");
    let e = h.engine("io_uring").unwrap().clone();
    let mut j = timed(job("r", RwPattern::RandRead, 4096, 128), "io_uring", 100);
    j.iodepth_batch_submit = 8;
    j.iodepth_batch_complete_min = 8;
    j.iodepth_batch_complete_max = 8;
    let batched = iops(&run_jobs(&mut filled_generic(), h.clone(), vec![j]));
    // Per I/O: an eighth of a submit call; the interrupt entry is shared by completions
    // arriving while its handler runs, so the ceiling is at least this.
    let per_io = ns(h.fio_prep + h.fio_complete)
        + ns(e.submit_call) / 8.0
        + ns(e.submit_io + h.block_submit + h.block_complete + e.complete_io + e.reap_io)
        + ns(h.irq)
        + ns(e.reap_call) / 8.0;
    let single = 1e9 / async_cost_per_io(&h, "io_uring");
    assert!(batched > single * 1.05, "batched {batched} vs single {single}");
    assert!(batched >= 1e9 / per_io * 0.98, "batched {batched} below its ceiling {}", 1e9 / per_io);
}

#[test]
fn polled_completions_take_no_interrupts_and_keep_the_core_busy() {
    let h = host("linux-6.1");
    let mut j = timed(job("r", RwPattern::RandRead, 4096, 1), "io_uring", 30);
    j.hipri = true;
    let mut dev = filled_generic();
    let set = JobSet { global_options: vec![], jobs: vec![j] };
    let opts = RunOptions { log_dir: std::env::temp_dir(), ..RunOptions::default() };
    let mut host = Host::new(&mut dev, h);
    let r = run(&mut host, &set, &opts, &mut |_| true).unwrap();
    let core = host.cpu().time(ssdtwin_core::os::CoreId(0));
    assert_eq!(core.irq_ns, 0);
    let j = &r.jobs[0];
    assert_eq!(j.ctx, 0);
    let runtime = j.dirs[0].runtime_ns as f64;
    let busy = (j.usr_ns + j.sys_ns) as f64;
    assert!(busy > runtime * 0.98 && busy < runtime * 1.02, "busy {busy} of {runtime}");
}

// ---- engines and hosts ----

#[test]
fn a_kernel_callback_engine_reissues_from_the_handler() {
    // nvmecontrol perftest -i intr: one command per thread, reissued by the completion
    // handler; the thread sleeps once for the whole test.
    let h = host("freebsd-11");
    let e = h.engine("nvmecontrol-intr").unwrap().clone();
    let mut j = timed(job("p", RwPattern::Read, 4096, 1), "nvmecontrol-intr", 30);
    j.size = Some(SizeSpec::Bytes(4096));
    let bare = run_jobs(&mut filled_generic(), bare_host(), vec![j.clone()]);
    let hosted = run_jobs(&mut filled_generic(), h.clone(), vec![j]);
    let device_ns = 1e9 / iops(&bare);
    let handler = ns(h.irq + e.complete_io + e.submit_io);
    let expected = 1e9 / (device_ns + handler);
    assert!((iops(&hosted) - expected).abs() < expected * 0.01, "{} vs {expected}", iops(&hosted));
    assert_eq!(hosted.jobs[0].ctx, 1);
}

#[test]
fn an_engine_the_host_lacks_is_refused_with_what_it_offers() {
    let mut dev = filled_generic();
    let set =
        JobSet { global_options: vec![], jobs: vec![timed(job("r", RwPattern::RandRead, 4096, 1), "io_uring", 1)] };
    let err = run(&mut Host::new(&mut dev, host("linux-4.15")), &set, &RunOptions::default(), &mut |_| true)
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("job 'r': ioengine=io_uring is not available on host linux-4.15 (linux); it offers "),
        "{err}"
    );
    assert!(err.contains("libaio"), "{err}");
}

#[test]
fn the_bare_host_adds_no_counters_and_a_real_host_counts_its_cores() {
    let j = timed(job("r", RwPattern::RandRead, 4096, 4), "libaio", 10);
    let bare = run_jobs(&mut filled_generic(), bare_host(), vec![j.clone()]);
    assert!(bare.groups[0].counters_end.entries.iter().all(|c| !c.name.starts_with("host.")));
    let hosted = run_jobs(&mut filled_generic(), host("linux-6.1"), vec![j]);
    let row = &hosted.groups[0].counters_end;
    let task = row.get("host.cpu_task_ns").unwrap();
    let per_core: u64 = (0..16).map(|c| row.get(&format!("host.cpu{c}.task_ns")).unwrap()).sum();
    assert_eq!(task, per_core);
    assert!(row.get("host.cpu_irq_ns").unwrap() > 0);
    assert_eq!(hosted.profile, BlockDevice::profile(&filled_generic()));
}

// ---- blockalign ----

#[test]
fn blockalign_aligns_random_offsets_and_may_repeat_them() {
    let dir = std::env::temp_dir().join(format!("ssdtwin-blockalign-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let args: Vec<String> = "--name=a --rw=randwrite --bs=4k --blockalign=1m --size=64m --number_ios=256 \
         --write_iops_log=ba --log_offset=1"
        .split_whitespace()
        .map(String::from)
        .collect();
    let set = ssdtwin_core::workload::fio::parse_command_line(&args).unwrap();
    assert!(set.jobs[0].norandommap, "fio turns the random map off with blockalign");
    let opts = RunOptions { log_dir: dir.clone(), ..RunOptions::default() };
    let mut dev = filled_generic();
    run(&mut Host::new(&mut dev, host("linux-6.1")), &set, &opts, &mut |_| true).unwrap();
    let log = std::fs::read_to_string(dir.join("ba_iops.1.log")).unwrap();
    let offsets: Vec<u64> = log.lines().map(|l| l.split(", ").nth(4).unwrap().parse().unwrap()).collect();
    assert_eq!(offsets.len(), 256);
    assert!(offsets.iter().all(|o| o % (1 << 20) == 0 && *o < 64 << 20), "{offsets:?}");
    // 256 draws from 64 aligned slots without a random map repeat some.
    let mut distinct = offsets.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert!(distinct.len() <= 64);
    std::fs::remove_dir_all(&dir).ok();
}

// ---- the block layer's request records ----

/// Random 4 KiB reads submitted straight to a `linux-6.1` host, four at a time, each on one
/// of four completion paths (two handler costs on core 0, one on core 1, polled);
/// `tag_base` is added to every tag.
/// Returns every completion with its tag less `tag_base`, and the disk statistics.
fn submit_and_poll(tag_base: u64) -> (Vec<IoDone>, DiskStats) {
    submit_and_poll_with(tag_base, Host::poll).0
}

/// [`submit_and_poll`], each completion taken from `poll`; also returns how many of them
/// `poll` returned ahead of their visible time (deferred back to the host, see
/// `completions_taken_early_and_handed_back_come_back_as_from_poll`).
fn submit_and_poll_with(
    tag_base: u64,
    mut poll: impl FnMut(&mut Host<Ssd>) -> Option<IoDone>,
) -> ((Vec<IoDone>, DiskStats), usize) {
    let linux = host("linux-6.1");
    let paths = [
        CompletionPath::Interrupt { core: CoreId(0), work: SimDuration(1_500) },
        CompletionPath::Interrupt { core: CoreId(0), work: SimDuration(700) },
        CompletionPath::Interrupt { core: CoreId(1), work: SimDuration(700) },
        CompletionPath::Polled,
    ];
    let mut h = Host::new(filled_generic(), linux);
    let mut done = Vec::new();
    let mut deferred = std::collections::HashSet::new();
    for k in 0..400u64 {
        let now = h.device().now();
        let io =
            IoRequest { opcode: Opcode::Read, offset_bytes: (k * 7919 % 2048) * 4096, bytes: 4096, placement: None };
        h.submit(now, now, io, tag_base + k, paths[(k % 4) as usize]);
        while h.in_flight() >= 4 || (k == 399 && h.in_flight() > 0) {
            let now = h.poll_at();
            if let Some(d) = poll(&mut h) {
                if d.visible > now {
                    // Seen ahead of its handler's end: had back at that time.
                    assert!(deferred.insert(d.tag), "a deferred completion comes back when visible");
                    h.defer(d);
                } else {
                    done.push(IoDone { tag: d.tag - tag_base, ..d });
                }
            }
        }
    }
    ((done, h.disk()), deferred.len())
}

#[test]
fn completions_taken_early_and_handed_back_come_back_as_from_poll() {
    // `poll_early` returns an I/O when the drive posts it, with its handler's end (three
    // paths in four take an interrupt); handed back, it comes back when `poll` gives it:
    // the same completions at the same times, with or without a request record.
    for tag_base in [0, 1 << 50] {
        let (polled, polled_disk) = submit_and_poll(tag_base);
        let ((early, early_disk), deferred) = submit_and_poll_with(tag_base, Host::poll_early);
        assert_eq!(deferred, 300);
        assert_eq!(early, polled);
        assert_eq!(early_disk, polled_disk);
    }
}

#[test]
fn an_io_of_one_command_completes_the_same_without_a_request_record() {
    // Tags below 2^48 travel in the command's tag; larger ones take a request record, the
    // block layer's general path. Both must give the same completions at the same times.
    let (direct, direct_disk) = submit_and_poll(0);
    let (recorded, recorded_disk) = submit_and_poll(1 << 50);
    assert_eq!(direct.len(), 400);
    assert_eq!(direct, recorded);
    assert_eq!(direct_disk, recorded_disk);
    // Each I/O's own path ran: an interrupt's completion is visible at least its handler's
    // work after the drive posted it (plus the entry unless it joined a running handler,
    // which it then waits for), a polled one at once.
    let irq = host("linux-6.1").irq;
    let after = |path: u64| direct.iter().filter(move |d| d.tag % 4 == path).map(|d| d.visible.since(d.device_done));
    assert!(after(0).all(|a| a >= SimDuration(1_500)));
    assert!(after(0).any(|a| a == irq + SimDuration(1_500)));
    assert!(after(1).all(|a| a >= SimDuration(700)));
    assert!(after(2).all(|a| a >= SimDuration(700)));
    assert!(after(2).any(|a| a == irq + SimDuration(700)));
    assert!(after(3).all(|a| a == SimDuration::ZERO));
}
