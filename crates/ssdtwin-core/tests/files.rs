//! Jobs on files: fio lays a file out before a job reads it, shares a named file between
//! clones, gives each clone its own files otherwise, and moves between a clone's files as
//! `file_service_type` says (fio 3.33's `filesetup.c` and `io_u.c`).

use ssdtwin_core::config::{build, load_profile};
use ssdtwin_core::os::{Host, bare_host};
use ssdtwin_core::ssd::Ssd;
use ssdtwin_core::workload::fio::parse_command_line;
use ssdtwin_core::workload::{JobSet, RunError, RunOptions, RunResult, run};
use std::path::PathBuf;

fn fresh() -> Ssd {
    Ssd::new(build(&load_profile("generic-tlc-1tb").unwrap()).unwrap())
}

fn jobs(args: &str) -> JobSet {
    parse_command_line(&args.split_whitespace().map(String::from).collect::<Vec<_>>()).unwrap()
}

fn log_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ssdtwin-files-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn try_run(dev: &mut Ssd, args: &str, dir: PathBuf) -> Result<RunResult, RunError> {
    let opts = RunOptions { log_dir: dir, ..RunOptions::default() };
    run(&mut Host::new(dev, bare_host()), &jobs(args), &opts, &mut |_| true)
}

fn run_bare(dev: &mut Ssd, args: &str) -> RunResult {
    try_run(dev, args, std::env::temp_dir()).unwrap()
}

const MIB: u64 = 1 << 20;

#[test]
fn a_read_job_lays_its_file_out_before_it_starts() {
    let mut dev = fresh();
    let r = run_bare(&mut dev, "--name=r --filename=data --rw=randread --bs=4k --size=64m --runtime=10ms --time_based");
    assert_eq!(dev.counters().host_write_bytes, 64 * MIB, "the layout writes the file once");
    assert!(r.jobs[0].start_ns > 0, "the job starts after the layout");
    let g = &r.groups[0];
    assert_eq!(g.counters_end.unmapped_read_share_since(&g.counters_start), Some(0.0));
    // The same job on the device reads what was never written.
    let r = run_bare(&mut fresh(), "--name=r --rw=randread --bs=4k --size=64m --runtime=10ms --time_based");
    let g = &r.groups[0];
    assert_eq!(g.counters_end.unmapped_read_share_since(&g.counters_start), Some(1.0));
}

#[test]
fn a_write_job_lays_out_only_with_overwrite() {
    let mut dev = fresh();
    let r = run_bare(&mut dev, "--name=w --filename=data --rw=write --bs=128k --size=32m");
    assert_eq!(dev.counters().host_write_bytes, 32 * MIB, "fio allocates the file and writes nothing first");
    assert_eq!(r.jobs[0].start_ns, 0);
    let mut dev = fresh();
    let r = run_bare(&mut dev, "--name=w --filename=data --rw=write --bs=128k --size=32m --overwrite=1");
    assert_eq!(dev.counters().host_write_bytes, 64 * MIB);
    assert!(r.jobs[0].start_ns > 0);
}

#[test]
fn a_named_file_is_shared_by_clones_and_unnamed_files_are_per_clone() {
    let mut dev = fresh();
    run_bare(&mut dev, "--name=r --filename=data --numjobs=3 --rw=read --bs=128k --size=8m");
    assert_eq!(dev.counters().host_write_bytes, 8 * MIB, "one file, laid out once");
    let mut dev = fresh();
    run_bare(&mut dev, "--name=r --directory=/mnt --numjobs=3 --rw=read --bs=128k --size=8m");
    assert_eq!(dev.counters().host_write_bytes, 24 * MIB, "r.0.0, r.1.0 and r.2.0");
    // A later job finds the file made by an earlier one.
    let mut dev = fresh();
    run_bare(&mut dev, "--name=a --filename=data --rw=read --size=8m --name=b --stonewall --filename=data --rw=read");
    assert_eq!(dev.counters().host_write_bytes, 8 * MIB);
}

#[test]
fn create_only_lays_out_and_does_no_io() {
    let mut dev = fresh();
    let r = run_bare(&mut dev, "--name=c --directory=/mnt --nrfiles=2 --filesize=4m --rw=read --create_only=1");
    assert_eq!(dev.counters().host_write_bytes, 8 * MIB);
    assert_eq!(dev.counters().host_read_bytes, 0);
    assert_eq!(r.jobs[0].dirs[0].io_bytes, 0);
}

/// In-file offsets of the I/Os of clone 1's latency log, in completion order.
fn logged_offsets(args: &str, tag: &str) -> Vec<u64> {
    let dir = log_dir(tag);
    let full = format!("{args} --write_lat_log=t --log_offset=1");
    try_run(&mut fresh(), &full, dir.clone()).unwrap();
    let text = std::fs::read_to_string(dir.join("t_clat.1.log")).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    text.lines().map(|l| l.split(", ").nth(4).unwrap().parse().unwrap()).collect()
}

#[test]
fn file_service_types_move_between_files_as_fio_does() {
    let base = "--name=f --directory=/mnt --nrfiles=4 --rw=read --bs=4k --size=64k --ioengine=psync";
    // Round robin: one I/O per file in turn, each file read from its start.
    let rr = logged_offsets(base, "rr");
    assert_eq!(&rr[..8], &[0, 0, 0, 0, 4096, 4096, 4096, 4096]);
    // roundrobin:2: two I/Os per file.
    let rr2 = logged_offsets(&format!("{base} --file_service_type=roundrobin:2"), "rr2");
    assert_eq!(&rr2[..8], &[0, 4096, 0, 4096, 0, 4096, 0, 4096]);
    // Sequential: each 16 KiB file to its end before the next.
    let seq = logged_offsets(&format!("{base} --file_service_type=sequential"), "seq");
    assert_eq!(&seq[..8], &[0, 4096, 8192, 12288, 0, 4096, 8192, 12288]);
    // Every file is read whole exactly once: 16 I/Os, four at each offset.
    for offsets in [&rr, &rr2, &seq] {
        assert_eq!(offsets.len(), 16);
        for at in [0, 4096, 8192, 12288] {
            assert_eq!(offsets.iter().filter(|&&o| o == at).count(), 4, "{offsets:?}");
        }
    }
    // Random: files drawn at random, each still read whole once the job's bytes are done.
    let random = logged_offsets(&format!("{base} --file_service_type=random"), "rand");
    assert_eq!(random.len(), 16);
    for at in [0, 4096, 8192, 12288] {
        assert_eq!(random.iter().filter(|&&o| o == at).count(), 4, "{random:?}");
    }
}

#[test]
fn file_errors_name_the_job_and_what_to_give() {
    let e = try_run(&mut fresh(), "--name=r --filename=data --rw=read", std::env::temp_dir()).unwrap_err();
    assert_eq!(e.to_string(), "job 'r': file data does not exist: give size= or filesize= (fio needs one)");
    let e = try_run(&mut fresh(), "--name=r --filename=data --rw=read --size=2t", std::env::temp_dir()).unwrap_err();
    assert!(e.to_string().starts_with("job 'r': file data (2199023255552 bytes) does not fit"), "{e}");
}
