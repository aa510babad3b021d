use ssdtwin_core::config::{apply_overrides, build, load_profile};
use ssdtwin_core::device::{Device, FillPattern};
use ssdtwin_core::workload::*;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mut p = load_profile("generic-tlc-1tb").unwrap();
    apply_overrides(&mut p, &args[4..].to_vec()).unwrap();
    let cfg = build(&p).unwrap();
    let mut dev = Device::new(cfg);
    let t = std::time::Instant::now();
    dev.fill(FillPattern::Sequential { percent: 100.0, command_bytes: 131072 }).unwrap();
    eprintln!("fill {:?}", t.elapsed());
    let mut j = JobSpec::new("j");
    j.rw = match args[1].as_str() {
        "randread" => RwPattern::RandRead,
        "randwrite" => RwPattern::RandWrite,
        "read" => RwPattern::Read,
        "write" => RwPattern::Write,
        _ => panic!(),
    };
    let bs: u64 = args[2].parse().unwrap();
    j.bs = [BlockSize::Fixed(bs), BlockSize::Fixed(bs), BlockSize::Fixed(bs)];
    j.iodepth = args[3].parse().unwrap();
    j.ioengine = "libaio".into();
    j.runtime_ns = Some(2_000_000_000);
    j.time_based = true;
    let set = JobSet { global_options: vec![], jobs: vec![j] };
    let t = std::time::Instant::now();
    let r = run(&mut dev, &set, &RunOptions::default(), &mut |_| true).unwrap();
    let el = t.elapsed();
    for d in 0..2 {
        let x = &r.jobs[0].dirs[d];
        if x.total_ios > 0 {
            eprintln!(
                "dir {d}: ios {} iops {:.0} MB/s {:.0} clat mean {:.1}us p50 {:?} ",
                x.total_ios,
                x.iops(),
                x.io_bytes as f64 / (x.runtime_ns as f64 / 1e9) / 1e6,
                x.latency.clat.mean() / 1000.0,
                x.latency.clat_hist.percentiles(&[50.0, 99.0])
            );
            eprintln!("wall {:?} -> {:.2} M IO/s", el, x.total_ios as f64 / el.as_secs_f64() / 1e6);
        }
    }
    let c = dev.counters();
    eprintln!("{:?}", c);
}
