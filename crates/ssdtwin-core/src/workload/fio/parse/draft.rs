//! A job while its options are being read: fio's `thread_options` plus what fio keeps
//! beside them (the block-size sources, `kb_base`, the options to echo).
//!
//! fio's model, which this mirrors: `[global]` sections (and command-line options before
//! the first `--name`) edit one default job, `def_thread`; each new job starts as a copy
//! of it *as it is at that moment*, with an empty list of echoed options; a later global
//! section therefore affects only later jobs. [`JobDraft::finish`] turns a draft into a
//! validated [`JobSpec`].

use crate::workload::engines::fio_engine;
use crate::workload::trace::{TraceReader, TraceSummary, merge_blktraces};
use crate::workload::{
    BlockSize, JobError, JobSpec, PlacementSpec, PlidSelect, ReplaySpec, RwPattern, SizeSpec, StridedZones, ZbdSpec,
};

/// A job (or the global defaults) being built.
#[derive(Clone, Debug)]
pub(super) struct JobDraft {
    /// Every field that maps one-to-one is set here directly.
    pub spec: JobSpec,
    /// `kb_base=` in force for this draft's size values (1024 or 1000).
    pub kb_base: u64,
    /// `bs=` per direction, bytes.
    pub bs_bytes: [u64; 3],
    /// `bsrange=` per direction, `(min, max)` bytes.
    pub bs_range: [Option<(u64, u64)>; 3],
    /// `bssplit=` per direction.
    pub bs_split: [Option<Vec<(u64, f64)>>; 3],
    /// `zonemode=` if given (fio's `ZONE_MODE_NOT_SPECIFIED` otherwise).
    pub zone_mode: Option<ZoneMode>,
    /// `zonesize=`, `zonerange=`, `zoneskip=`, bytes (0: not given).
    pub zone_size: u64,
    pub zone_range: u64,
    pub zone_skip: u64,
    /// `fdp=` if given.
    pub fdp: Option<bool>,
    /// `dataplacement=` if given.
    pub dataplacement: Option<&'static str>,
    /// `plids=`, sorted.
    pub plids: Option<Vec<u16>>,
    /// `plid_select=`.
    pub plid_select: PlidSelect,
    /// The zbd options (kept whatever `zonemode` says; used under `zonemode=zbd`).
    pub zbd: ZbdSpec,
}

/// `zonemode=` as given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ZoneMode {
    /// `none`: the zone options are ignored (and `zonesize` is refused).
    None,
    /// `strided`.
    Strided,
    /// `zbd`: a zoned block device's zones.
    Zbd,
}

impl JobDraft {
    /// fio's defaults (`def_thread` before any option).
    pub fn defaults() -> Self {
        JobDraft {
            spec: JobSpec::new(""),
            kb_base: 1024,
            bs_bytes: [4096; 3],
            bs_range: [None, None, None],
            bs_split: [None, None, None],
            zone_mode: None,
            zone_size: 0,
            zone_range: 0,
            zone_skip: 0,
            fdp: None,
            dataplacement: None,
            plids: None,
            plid_select: PlidSelect::RoundRobin,
            zbd: ZbdSpec::default(),
        }
    }

    /// A new job named `name`, starting from the global defaults as they are now. Like
    /// fio, it echoes none of the global options.
    pub fn job_from(global: &JobDraft, name: &str) -> Self {
        let mut job = global.clone();
        job.spec.name = name.to_string();
        job.spec.options.clear();
        job
    }

    /// Records `name=value` for fio's `"job options"` / `"global options"`: an option set
    /// again keeps its first position and takes the new value, as fio's option list does.
    pub fn echo(&mut self, name: &str, value: &str) {
        match self.spec.options.iter_mut().find(|(n, _)| n == name) {
            Some(entry) => entry.1 = value.to_string(),
            None => self.spec.options.push((name.to_string(), value.to_string())),
        }
    }

    /// Resolves the block sizes and checks what depends on several options.
    ///
    /// Per direction, `bssplit` wins over `bsrange`, which wins over `bs`, whatever the
    /// order they were given in (fio stores them apart and picks in that order).
    pub fn finish(self) -> Result<JobSpec, JobError> {
        let JobDraft {
            mut spec,
            bs_bytes,
            bs_range,
            bs_split,
            zone_mode,
            zone_size,
            zone_range,
            zone_skip,
            fdp,
            dataplacement,
            plids,
            plid_select,
            zbd,
            ..
        } = self;
        if zone_mode == Some(ZoneMode::Zbd) {
            spec.zbd = Some(ZbdSpec { zone_size: (zone_size > 0).then_some(zone_size), ..zbd });
        }
        spec.placement = data_placement(&spec, fdp, dataplacement, plids, plid_select)?;
        // A passthrough engine's I/O never meets the page cache, whatever direct= says.
        if fio_engine(&spec.ioengine).is_some_and(|e| e.passthrough) {
            spec.direct = true;
        }
        for dir in 0..3 {
            spec.bs[dir] = match (&bs_split[dir], bs_range[dir]) {
                (Some(split), _) => BlockSize::Split(split.clone()),
                (None, Some((min, max))) if min != max => BlockSize::Range { min, max },
                (None, Some((min, _))) => BlockSize::Fixed(min),
                (None, None) => BlockSize::Fixed(bs_bytes[dir]),
            };
        }
        // Replay options without a trace change nothing, as in fio.
        if spec.replay.as_ref().is_some_and(|r| r.paths.is_empty()) {
            spec.replay = None;
        }
        if let Some(replay) = spec.replay.clone() {
            shape_from_traces(&mut spec, &replay)?;
        }
        spec.strided_zones = strided_zones(&spec, zone_mode, zone_size, zone_range, zone_skip)?;
        if spec.time_based && spec.runtime_ns.is_none() {
            return Err(JobError::Invalid {
                job: spec.name.clone(),
                problem: "time_based needs runtime= (fio would drop time_based with a warning)".into(),
            });
        }
        // fio's fixup_options: a minimum above the limit can never be met.
        for (ddir, dir) in ["read", "write", "trim"].iter().enumerate() {
            let above = |limit: Option<u64>, min: Option<u64>| limit.zip(min).is_some_and(|(l, m)| l < m);
            if above(spec.rate_bytes[ddir], spec.rate_min[ddir])
                || above(spec.rate_iops[ddir], spec.rate_iops_min[ddir])
            {
                return Err(JobError::Invalid {
                    job: spec.name.clone(),
                    problem: format!(
                        "the minimum {dir} rate exceeds its rate (fio: minimum rate exceeds rate, ddir {ddir})"
                    ),
                });
            }
        }
        Ok(spec)
    }
}

/// fio's data placement set-up (init.c, dataplacement.c): `fdp=1` means `dataplacement=fdp`
/// and refuses another explicit mode; placement needs an engine that can fetch the drive's
/// reclaim unit handles, which of fio's engines only `io_uring_cmd` (and `xnvme`) do.
fn data_placement(
    spec: &JobSpec,
    fdp: Option<bool>,
    mode: Option<&'static str>,
    plids: Option<Vec<u16>>,
    select: PlidSelect,
) -> Result<Option<PlacementSpec>, JobError> {
    let invalid = |problem: String| JobError::Invalid { job: spec.name.clone(), problem };
    let mode = match (fdp, mode) {
        (Some(true), Some("none" | "streams")) => {
            return Err(invalid("fdp=1 is not compatible with dataplacement={streams, none}".into()));
        }
        (Some(true), _) => "fdp",
        (_, Some(m)) => m,
        (_, None) => "none",
    };
    match mode {
        "none" => Ok(None),
        "streams" => Err(invalid(
            "dataplacement=streams: NVMe write streams are not modelled; an FDP drive takes dataplacement=fdp".into(),
        )),
        _ if spec.ioengine != "io_uring_cmd" => Err(invalid(format!(
            "data placement needs ioengine=io_uring_cmd: engine ({}) lacks fetch ruhs (fio places writes through \
             io_uring_cmd and xnvme only)",
            spec.ioengine
        ))),
        _ => Ok(Some(PlacementSpec { indices: plids, select })),
    }
}

/// fio's zone setup (`fixup_options`, init.c): `zonemode` defaults to `none` (its option
/// table's default), which refuses `zonesize=`; `strided` needs it; `zonerange=` defaults to
/// `zonesize=`; strided zones only work with one file, so with several they are dropped, as
/// fio drops them.
fn strided_zones(
    spec: &JobSpec,
    mode: Option<ZoneMode>,
    size: u64,
    range: u64,
    skip: u64,
) -> Result<Option<StridedZones>, JobError> {
    let invalid = |problem: &str| JobError::Invalid { job: spec.name.clone(), problem: problem.into() };
    let strided = match mode.unwrap_or(ZoneMode::None) {
        ZoneMode::None if size > 0 => {
            return Err(invalid(
                "zonemode=none (the default) and zonesize are not compatible; give zonemode=strided \
                 (fio: --zonemode=none and --zonesize are not compatible)",
            ));
        }
        ZoneMode::Strided if size == 0 => {
            return Err(invalid("zonemode=strided needs zonesize= (fio: --zonesize must be specified)"));
        }
        ZoneMode::None | ZoneMode::Zbd => false,
        ZoneMode::Strided => true,
    };
    if !strided || spec.files.nrfiles > 1 {
        return Ok(None);
    }
    Ok(Some(StridedZones { size, range: if range == 0 { size } else { range }, skip }))
}

/// fio's `read_iolog` setup: the job's directions, largest block per direction, size and
/// (for a blktrace without `iodepth=`) depth come from its traces, read through once here
/// so that a malformed trace is refused before anything runs.
fn shape_from_traces(spec: &mut JobSpec, replay: &ReplaySpec) -> Result<(), JobError> {
    let invalid = |problem: String| JobError::Invalid { job: spec.name.clone(), problem };
    let mut replay = replay.clone();
    if let Some(out) = &replay.merge_into {
        merge_blktraces(&replay.paths, &replay.merge_scalars, &replay.merge_iters, std::path::Path::new(out))
            .map_err(invalid)?;
        replay.paths = vec![out.clone()];
        spec.replay = Some(replay.clone());
    }
    let replay = &replay;
    let mut total = TraceSummary::default();
    for path in &replay.paths {
        let s = TraceReader::scan(path, replay.options, u64::MAX, 1).map_err(invalid)?;
        for d in 0..4 {
            total.ios[d] += s.ios[d];
        }
        for d in 0..3 {
            total.bytes[d] += s.bytes[d];
            total.max_bytes[d] = total.max_bytes[d].max(s.max_bytes[d]);
        }
        total.depth = total.depth.max(s.depth);
    }
    let [reads, writes, trims, _] = total.ios.map(|n| n > 0);
    spec.rw = match (reads, writes, trims) {
        (true, true, _) => RwPattern::ReadWrite,
        (true, false, _) => RwPattern::Read,
        (false, true, _) => RwPattern::Write,
        (false, false, _) => RwPattern::Trim,
    };
    for d in 0..3 {
        if total.max_bytes[d] > 0 {
            spec.bs[d] = BlockSize::Fixed(total.max_bytes[d]);
        }
    }
    spec.size = Some(SizeSpec::Bytes(total.bytes.iter().sum::<u64>().max(1)));
    if let (Some(depth), false) = (total.depth, spec.iodepth_given) {
        spec.iodepth = depth;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_copies_the_globals_but_not_their_echo() {
        let mut global = JobDraft::defaults();
        global.spec.iodepth = 8;
        global.echo("iodepth", "8");
        let job = JobDraft::job_from(&global, "j");
        assert_eq!(job.spec.iodepth, 8);
        assert_eq!(job.spec.name, "j");
        assert!(job.spec.options.is_empty());
    }

    #[test]
    fn echo_updates_in_place() {
        let mut d = JobDraft::defaults();
        d.echo("rw", "read");
        d.echo("bs", "4k");
        d.echo("rw", "write");
        assert_eq!(d.spec.options, vec![("rw".into(), "write".into()), ("bs".into(), "4k".into())]);
    }

    #[test]
    fn block_size_sources_have_fios_precedence() {
        let mut d = JobDraft::defaults();
        d.bs_bytes = [8192; 3];
        d.bs_range[1] = Some((1024, 4096));
        d.bs_range[2] = Some((2048, 2048));
        d.bs_split[2] = Some(vec![(512, 100.0)]);
        let spec = d.finish().unwrap();
        assert_eq!(spec.bs[0], BlockSize::Fixed(8192));
        assert_eq!(spec.bs[1], BlockSize::Range { min: 1024, max: 4096 });
        assert_eq!(spec.bs[2], BlockSize::Split(vec![(512, 100.0)]));
    }

    #[test]
    fn time_based_needs_a_runtime() {
        let mut d = JobDraft::job_from(&JobDraft::defaults(), "t");
        d.spec.time_based = true;
        assert_eq!(
            d.finish().unwrap_err().to_string(),
            "job 't': time_based needs runtime= (fio would drop time_based with a warning)"
        );
    }
}
