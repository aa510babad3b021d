//! The fio options ssdtwin honours: for each, its name as fio echoes it, its aliases,
//! whether it is a flag, its parse priority, and how its value sets a [`JobDraft`].
//!
//! Meanings and units follow the fio 3.33 HOWTO ("Job file parameters"); where ssdtwin
//! narrows one (`direct`, `rw=...:N`, `startdelay` ranges, `randtrimwrite`) it refuses the
//! value with a reason instead of approximating it. Every other option name is refused by
//! the caller with [`unsupported_hint`]'s advice: an option is never silently ignored.

use super::draft::{JobDraft, ZoneMode};
use super::splits;
use super::values::{self, DefaultTimeUnit, MAX_BLOCK_BYTES, SizeOrPercent};
use crate::workload::trace::ReplayOptions;
use crate::workload::{
    Distribution, ExitWhat, FadviseHint, FileService, FlowSpec, IoPriority, LatencyTarget, PlidSelect, PrioritySplit,
    ReplaySpec, RwPattern, RwSequencer, SizeSpec, UnifiedRw, VerifyMethod,
};

/// How an option is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Takes {
    /// `key=value`.
    Value,
    /// A flag: bare `key` sets it and is not echoed (fio omits it from its JSON);
    /// `key=0` or `key=1` sets it explicitly and is echoed.
    Flag,
}

/// One supported option.
pub(super) struct OptionDef {
    /// fio's name for it, the one fio echoes in `"job options"` even when an alias was used.
    pub name: &'static str,
    /// Other spellings fio accepts.
    pub aliases: &'static [&'static str],
    /// Value or flag.
    pub takes: Takes,
    /// fio's parse priority inside one section: higher first. fio sorts each section's
    /// options by it (stably), which is why `kb_base` governs every size in its section
    /// and `filename` comes last in fio's echo.
    pub priority: i8,
    /// Reads the value (`"1"` for a bare flag) into the draft; `Err` says what is allowed.
    pub apply: fn(&mut JobDraft, &str) -> Result<(), String>,
}

/// Finds an option by name or alias (case-sensitive, as in fio).
/// Every option name ssdtwin accepts, aliases included, and whether it may stand bare (a
/// flag), in the table's order.
pub(super) fn names() -> Vec<(&'static str, bool)> {
    OPTIONS
        .iter()
        .flat_map(|o| {
            std::iter::once(o.name).chain(o.aliases.iter().copied()).map(move |n| (n, o.takes == Takes::Flag))
        })
        .collect()
}

pub(super) fn lookup(name: &str) -> Option<&'static OptionDef> {
    OPTIONS.iter().find(|o| o.name == name || o.aliases.contains(&name))
}

const fn value(name: &'static str, apply: fn(&mut JobDraft, &str) -> Result<(), String>) -> OptionDef {
    OptionDef { name, aliases: &[], takes: Takes::Value, priority: 0, apply }
}

const fn alias(mut def: OptionDef, aliases: &'static [&'static str]) -> OptionDef {
    def.aliases = aliases;
    def
}

const fn flag(name: &'static str, apply: fn(&mut JobDraft, &str) -> Result<(), String>) -> OptionDef {
    OptionDef { name, aliases: &[], takes: Takes::Flag, priority: 0, apply }
}

/// The table, in the HOWTO's order of topics.
static OPTIONS: &[OptionDef] = &[
    // ---- job description and target ----
    value("name", |d, v| {
        d.spec.name = v.to_string();
        Ok(())
    }),
    OptionDef {
        priority: -1,
        ..value("filename", |d, v| {
            d.spec.filename = Some(v.to_string());
            Ok(())
        })
    },
    value("directory", |d, v| {
        d.spec.files.directory = Some(v.to_string());
        Ok(())
    }),
    alias(
        value("nrfiles", |d, v| {
            d.spec.files.nrfiles = values::count_in(v, d.kb_base, 1, 1 << 20)? as u32;
            Ok(())
        }),
        &["nr_files"],
    ),
    value("filesize", |d, v| {
        let (low, high) = if v.contains(['-', ':']) {
            values::size_range(v, d.kb_base)?
        } else {
            let bytes = values::size(v, d.kb_base)?;
            (bytes, bytes)
        };
        if low == 0 {
            return Err("allowed a size or a range of sizes above 0, e.g. 1g or 4k-64k".into());
        }
        d.spec.files.filesize = Some((low, high));
        Ok(())
    }),
    OptionDef {
        // fio reads it after `directory`, as it does `filename`.
        priority: -1,
        ..value("filename_format", |d, v| {
            d.spec.files.filename_format = Some(v.to_string());
            Ok(())
        })
    },
    value("file_service_type", file_service_type),
    value("create_on_open", |d, v| {
        d.spec.files.create_on_open = values::boolean(v)?;
        Ok(())
    }),
    value("overwrite", |d, v| {
        d.spec.files.overwrite = values::boolean(v)?;
        Ok(())
    }),
    value("create_only", |d, v| {
        d.spec.files.create_only = values::boolean(v)?;
        Ok(())
    }),
    value("unlink", |d, v| {
        d.spec.files.unlink = values::boolean(v)?;
        Ok(())
    }),
    alias(value("steadystate", steadystate), &["ss"]),
    alias(
        value("steadystate_duration", |d, v| {
            d.spec.steadystate.dur_ns = values::time_ns(v, DefaultTimeUnit::Seconds)?;
            Ok(())
        }),
        &["ss_dur"],
    ),
    alias(
        value("steadystate_ramp_time", |d, v| {
            d.spec.steadystate.ramp_ns = values::time_ns(v, DefaultTimeUnit::Seconds)?;
            Ok(())
        }),
        &["ss_ramp"],
    ),
    alias(
        value("steadystate_check_interval", |d, v| {
            let ns = values::time_ns(v, DefaultTimeUnit::Seconds)?;
            if ns < 1_000_000 {
                return Err("allowed 1ms or more".into());
            }
            d.spec.steadystate.interval_ns = ns;
            Ok(())
        }),
        &["ss_interval"],
    ),
    value("ioengine", |d, v| {
        d.spec.ioengine = v.to_string();
        Ok(())
    }),
    OptionDef {
        priority: 1,
        ..value("kb_base", |d, v| {
            d.kb_base = match values::plain_integer(v) {
                Ok(base @ (1000 | 1024)) => base,
                _ => return Err("allowed 1000 or 1024".into()),
            };
            Ok(())
        })
    },
    // ---- I/O type ----
    alias(value("rw", rw), &["readwrite"]),
    value("rw_sequencer", |d, v| {
        d.spec.rw_sequencer = match values::one_of(v, &["sequential", "identical"])? {
            "sequential" => RwSequencer::Sequential,
            _ => RwSequencer::Identical,
        };
        Ok(())
    }),
    value("rwmixread", |d, v| {
        d.spec.rwmix_read = values::count_in(v, d.kb_base, 0, 100)? as u32;
        Ok(())
    }),
    value("rwmixwrite", |d, v| {
        d.spec.rwmix_read = 100 - values::count_in(v, d.kb_base, 0, 100)? as u32;
        Ok(())
    }),
    value("direct", |d, v| {
        d.spec.direct = values::boolean(v)?;
        Ok(())
    }),
    value("buffered", |d, v| {
        d.spec.direct = !values::boolean(v)?;
        Ok(())
    }),
    value("invalidate", |d, v| {
        d.spec.invalidate = values::boolean(v)?;
        Ok(())
    }),
    flag("pre_read", |d, v| {
        d.spec.pre_read = values::boolean(v)?;
        Ok(())
    }),
    value("fadvise_hint", |d, v| {
        d.spec.fadvise_hint = match v {
            "0" => FadviseHint::Off,
            "1" => FadviseHint::Workload,
            "sequential" => FadviseHint::Sequential,
            "random" => FadviseHint::Random,
            _ => return Err(format!("'{v}': allowed 0, 1, sequential, random")),
        };
        Ok(())
    }),
    value("fsync", |d, v| {
        d.spec.fsync_blocks = values::count(v, d.kb_base)?;
        Ok(())
    }),
    value("fdatasync", |d, v| {
        d.spec.fdatasync_blocks = values::count(v, d.kb_base)?;
        Ok(())
    }),
    flag("end_fsync", |d, v| {
        d.spec.end_fsync |= values::boolean(v)?;
        Ok(())
    }),
    flag("fsync_on_close", |d, v| {
        d.spec.end_fsync |= values::boolean(v)?;
        Ok(())
    }),
    flag("end_syncfs", |d, v| {
        d.spec.end_fsync |= values::boolean(v)?;
        Ok(())
    }),
    value("sync", |d, v| {
        d.spec.sync_writes = matches!(values::one_of(v, &["none", "0", "sync", "1", "dsync"])?, "sync" | "1" | "dsync");
        Ok(())
    }),
    // ---- block size ----
    alias(value("bs", bs), &["blocksize"]),
    alias(value("bsrange", bsrange), &["blocksize_range"]),
    value("bssplit", |d, v| {
        for (dir, part) in values::per_direction(v)?.into_iter().enumerate() {
            if let Some(list) = part {
                d.bs_split[dir] = Some(splits::bssplit(list, d.kb_base)?);
            }
        }
        Ok(())
    }),
    // ---- region and amount ----
    value("size", |d, v| {
        d.spec.size = budget(v, d.kb_base)?;
        Ok(())
    }),
    alias(
        value("io_size", |d, v| {
            d.spec.io_size = budget(v, d.kb_base)?;
            Ok(())
        }),
        &["io_limit"],
    ),
    alias(
        value("offset", |d, v| {
            d.spec.offset = place(v, d.kb_base)?;
            Ok(())
        }),
        &["fileoffset"],
    ),
    value("offset_increment", |d, v| {
        d.spec.offset_increment = place(v, d.kb_base)?;
        Ok(())
    }),
    value("number_ios", |d, v| {
        d.spec.number_ios = Some(values::count(v, d.kb_base)?).filter(|&n| n > 0);
        Ok(())
    }),
    value("loops", |d, v| {
        d.spec.loops = values::count_in(v, d.kb_base, 1, u64::from(u32::MAX))? as u32;
        Ok(())
    }),
    // ---- time ----
    alias(
        value("runtime", |d, v| {
            d.spec.runtime_ns = Some(values::time_ns(v, DefaultTimeUnit::Seconds)?).filter(|&ns| ns > 0);
            Ok(())
        }),
        &["timeout"],
    ),
    flag("time_based", |d, v| {
        d.spec.time_based = values::boolean(v)?;
        Ok(())
    }),
    value("ramp_time", |d, v| {
        d.spec.ramp_time_ns = values::time_ns(v, DefaultTimeUnit::Seconds)?;
        Ok(())
    }),
    value("startdelay", |d, v| {
        if v.contains(['-', ':']) {
            return Err("random start delays (ranges) are not supported by ssdtwin; give one time".into());
        }
        d.spec.startdelay_ns = values::time_ns(v, DefaultTimeUnit::Seconds)?;
        Ok(())
    }),
    value("thinktime", |d, v| {
        d.spec.thinktime_ns = values::time_ns(v, DefaultTimeUnit::Microseconds)?;
        Ok(())
    }),
    value("thinktime_spin", |d, v| {
        d.spec.thinktime_spin_ns = values::time_ns(v, DefaultTimeUnit::Microseconds)?;
        Ok(())
    }),
    value("thinktime_blocks", |d, v| {
        d.spec.thinktime_blocks = values::count_in(v, d.kb_base, 1, u64::from(u32::MAX))?;
        Ok(())
    }),
    value("thinktime_blocks_type", |d, v| {
        d.spec.thinktime_blocks_issue = values::one_of(v, &["complete", "issue"])? == "issue";
        Ok(())
    }),
    value("thinktime_iotime", |d, v| {
        d.spec.thinktime_iotime_ns = values::time_ns(v, DefaultTimeUnit::Seconds)?;
        Ok(())
    }),
    // ---- queueing, clones, groups ----
    value("iodepth", |d, v| {
        d.spec.iodepth = values::count_in(v, d.kb_base, 1, 65536)? as u32;
        d.spec.iodepth_given = true;
        Ok(())
    }),
    value("numjobs", |d, v| {
        d.spec.numjobs = values::count_in(v, d.kb_base, 1, 65536)? as u32;
        Ok(())
    }),
    alias(
        value("iodepth_batch", |d, v| {
            d.spec.iodepth_batch_submit = values::count_in(v, d.kb_base, 0, 65536)? as u32;
            Ok(())
        }),
        &["iodepth_batch_submit"],
    ),
    alias(
        value("iodepth_batch_complete_min", |d, v| {
            d.spec.iodepth_batch_complete_min = values::count_in(v, d.kb_base, 0, 65536)? as u32;
            Ok(())
        }),
        &["iodepth_batch_complete"],
    ),
    value("iodepth_batch_complete_max", |d, v| {
        d.spec.iodepth_batch_complete_max = values::count_in(v, d.kb_base, 0, 65536)? as u32;
        Ok(())
    }),
    value("iodepth_low", |d, v| {
        d.spec.iodepth_low = values::count_in(v, d.kb_base, 0, 65536)? as u32;
        Ok(())
    }),
    value("io_submit_mode", |d, v| {
        d.spec.io_submit_offload = values::one_of(v, &["inline", "offload"])? == "offload";
        Ok(())
    }),
    // ---- engine options (io_uring; the host profile says what each saves) ----
    flag("hipri", |d, v| {
        d.spec.hipri = values::boolean(v)?;
        Ok(())
    }),
    flag("fixedbufs", |d, v| {
        d.spec.fixedbufs = values::boolean(v)?;
        Ok(())
    }),
    flag("registerfiles", |d, v| {
        d.spec.registerfiles = values::boolean(v)?;
        Ok(())
    }),
    // The core of io_uring's submission-queue polling thread: the host model books no such
    // thread (sqthread_poll only takes the submit call off the job's thread).
    value("sqthread_poll_cpu", |_, v| values::count(v, 1024).map(drop)),
    // io_uring's READ/WRITE in place of READV/WRITEV: the host model costs them the same.
    flag("nonvectored", |_, v| values::boolean(v).map(drop)),
    flag("sqthread_poll", |d, v| {
        d.spec.sqthread_poll = values::boolean(v)?;
        Ok(())
    }),
    // ---- CPUs ----
    value("cpus_allowed", |d, v| {
        d.spec.cpus_allowed = Some(values::cpu_list(v)?);
        Ok(())
    }),
    value("cpumask", |d, v| {
        d.spec.cpus_allowed = Some(values::cpu_mask(v)?);
        Ok(())
    }),
    OptionDef {
        priority: 1,
        ..value("cpus_allowed_policy", |d, v| {
            d.spec.cpus_split = values::one_of(v, &["shared", "split"])? == "split";
            Ok(())
        })
    },
    alias(
        value("ba", |d, v| {
            per_direction_limit(v, &mut d.spec.blockalign, |t| values::size(t, d.kb_base))?;
            d.spec.norandommap = true;
            Ok(())
        }),
        &["blockalign"],
    ),
    value("rate_iops", |d, v| per_direction_limit(v, &mut d.spec.rate_iops, |t| values::count(t, d.kb_base))),
    value("rate", |d, v| per_direction_limit(v, &mut d.spec.rate_bytes, |t| values::size(t, d.kb_base))),
    alias(
        value("rate_min", |d, v| per_direction_limit(v, &mut d.spec.rate_min, |t| values::size(t, d.kb_base))),
        &["ratemin"],
    ),
    value("rate_iops_min", |d, v| per_direction_limit(v, &mut d.spec.rate_iops_min, |t| values::count(t, d.kb_base))),
    alias(
        value("rate_cycle", |d, v| {
            d.spec.rate_cycle_ms = values::plain_integer(v)?;
            Ok(())
        }),
        &["ratecycle"],
    ),
    value("rate_process", |d, v| {
        d.spec.rate_poisson = values::one_of(v, &["linear", "poisson"])? == "poisson";
        Ok(())
    }),
    flag("group_reporting", |d, v| {
        d.spec.group_reporting = values::boolean(v)?;
        Ok(())
    }),
    alias(
        flag("stonewall", |d, v| {
            d.spec.stonewall = values::boolean(v)?;
            Ok(())
        }),
        &["wait_for_previous"],
    ),
    value("wait_for", |d, v| {
        d.spec.wait_for = Some(v.to_string());
        Ok(())
    }),
    flag("exitall", |d, v| {
        d.spec.exitall = values::boolean(v)?;
        Ok(())
    }),
    value("exit_what", |d, v| {
        d.spec.exit_what = match values::one_of(v, &["group", "stonewall", "all"])? {
            "group" => ExitWhat::Group,
            "stonewall" => ExitWhat::Stonewall,
            _ => ExitWhat::All,
        };
        Ok(())
    }),
    // The twin's I/O never fails, so there is no error to end other jobs on.
    flag("exitall_on_error", no_effect_flag),
    flag("new_group", |d, v| {
        d.spec.new_group = values::boolean(v)?;
        Ok(())
    }),
    value("unified_rw_reporting", |d, v| {
        // fio 3.33 takes the names and their numbers (its posval table).
        d.spec.unified_rw_reporting = match values::one_of(v, &["none", "mixed", "both", "0", "1", "2"])? {
            "none" | "0" => UnifiedRw::None,
            "mixed" | "1" => UnifiedRw::Mixed,
            _ => UnifiedRw::Both,
        };
        Ok(())
    }),
    // io_uring_cmd's command set: NVMe is the one fio 3.3x knows. An engine option: fio
    // parses (and echoes) it after the job's own, `filename` included.
    OptionDef { priority: -2, ..value("cmd_type", |_, v| values::one_of(v, &["nvme"]).map(drop)) },
    // ---- data placement (fio 3.34+: fdp, fdp_pli, fdp_pli_select; 3.38 renamed them) ----
    flag("fdp", |d, v| {
        d.fdp = Some(values::boolean(v)?);
        Ok(())
    }),
    alias(
        value("dataplacement", |d, v| {
            d.dataplacement = Some(values::one_of(v, &["none", "fdp", "streams"])?);
            Ok(())
        }),
        &["data_placement"],
    ),
    alias(value("plids", |d, v| placement_ids(v).map(|ids| d.plids = Some(ids))), &["fdp_pli"]),
    alias(
        value("plid_select", |d, v| {
            d.plid_select = match values::one_of(v, &["roundrobin", "random", "scheme"])? {
                "roundrobin" => PlidSelect::RoundRobin,
                "random" => PlidSelect::Random,
                _ => {
                    return Err("scheme reads offsets-to-identifiers from a dp_scheme file, which ssdtwin does not \
                                read; allowed roundrobin, random"
                        .into());
                }
            };
            Ok(())
        }),
        &["fdp_pli_select"],
    ),
    // ---- strided zones ----
    value("zonemode", |d, v| {
        d.zone_mode = Some(match values::one_of(v, &["none", "strided", "zbd"])? {
            "none" => ZoneMode::None,
            "strided" => ZoneMode::Strided,
            _ => ZoneMode::Zbd,
        });
        Ok(())
    }),
    value("max_open_zones", |d, v| {
        d.zbd.max_open_zones = zone_count(v, "max_open_zones")?;
        Ok(())
    }),
    value("job_max_open_zones", |d, v| {
        d.zbd.job_max_open_zones = zone_count(v, "job_max_open_zones")?;
        Ok(())
    }),
    value("zone_reset_threshold", |d, v| {
        d.zbd.reset_threshold = Some(zone_fraction(v)?);
        Ok(())
    }),
    value("zone_reset_frequency", |d, v| {
        d.zbd.reset_frequency = Some(zone_fraction(v)?);
        Ok(())
    }),
    flag("read_beyond_wp", |d, v| {
        d.zbd.read_beyond_wp = values::boolean(v)?;
        Ok(())
    }),
    flag("ignore_zone_limits", |d, v| {
        d.zbd.ignore_zone_limits = values::boolean(v)?;
        Ok(())
    }),
    value("zonesize", |d, v| {
        d.zone_size = values::size(v, d.kb_base)?;
        Ok(())
    }),
    value("zonerange", |d, v| {
        d.zone_range = values::size(v, d.kb_base)?;
        Ok(())
    }),
    value("zoneskip", |d, v| {
        d.zone_skip = values::size(v, d.kb_base)?;
        Ok(())
    }),
    // ---- randomness ----
    flag("norandommap", |d, v| {
        d.spec.norandommap = values::boolean(v)?;
        Ok(())
    }),
    value("randrepeat", |d, v| {
        d.spec.randrepeat = values::boolean(v)?;
        Ok(())
    }),
    value("randseed", |d, v| {
        d.spec.randseed = Some(values::count(v, d.kb_base)?);
        Ok(())
    }),
    value("random_distribution", random_distribution),
    // ---- reporting and logs ----
    value("percentile_list", |d, v| {
        d.spec.percentile_list = percentile_list(v)?;
        Ok(())
    }),
    value("write_lat_log", |d, v| {
        d.spec.write_lat_log = Some(v.to_string());
        Ok(())
    }),
    value("write_bw_log", |d, v| {
        d.spec.write_bw_log = Some(v.to_string());
        Ok(())
    }),
    value("write_iops_log", |d, v| {
        d.spec.write_iops_log = Some(v.to_string());
        Ok(())
    }),
    value("log_avg_msec", |d, v| {
        d.spec.log_avg_msec = values::plain_integer(v)?;
        Ok(())
    }),
    value("log_offset", |d, v| {
        d.spec.log_offset = values::boolean(v)?;
        Ok(())
    }),
    value("write_hist_log", |d, v| {
        d.spec.write_hist_log = Some(v.to_string());
        Ok(())
    }),
    value("log_hist_msec", |d, v| {
        d.spec.log_hist_msec = values::plain_integer(v)?;
        Ok(())
    }),
    value("log_hist_coarseness", |d, v| {
        let c = values::plain_integer(v)?;
        if c > 6 {
            return Err(format!("'{v}': allowed 0 to 6"));
        }
        d.spec.log_hist_coarseness = c as u32;
        Ok(())
    }),
    alias(
        flag("fill_device", |d, v| {
            d.spec.files.fill_device = values::boolean(v)?;
            Ok(())
        }),
        &["fill_fs"],
    ),
    value("numa_cpu_nodes", |d, v| {
        d.spec.numa_cpu_nodes = Some(numa_nodes(v)?);
        Ok(())
    }),
    value("numa_mem_policy", |d, v| {
        // fio's `<mode>[:<nodes>]`: default and local take no nodes, prefer one, bind and
        // interleave a list.
        let (mode, nodes) = v.split_once(':').unwrap_or((v, ""));
        d.spec.numa_mem_nodes =
            match (values::one_of(mode, &["default", "local", "prefer", "bind", "interleave"])?, nodes) {
                ("default" | "local", "") => Vec::new(),
                ("default" | "local", _) => return Err(format!("'{v}': {mode} takes no node list")),
                (_, "") => return Err(format!("'{v}': {mode} needs nodes, e.g. {mode}:0")),
                ("prefer", n) => vec![values::plain_integer(n)? as u32],
                (_, n) => numa_nodes(n)?,
            };
        Ok(())
    }),
    // ---- I/O priorities: recorded per command and reported per priority; an NVMe drive
    // behind Linux's `none` scheduler serves every priority alike ----
    value("prio", |d, v| {
        d.spec.priority.level = Some(values::count_in(v, d.kb_base, 0, 7)? as u8);
        Ok(())
    }),
    value("prioclass", |d, v| {
        d.spec.priority.class = Some(values::count_in(v, d.kb_base, 0, 3)? as u8);
        Ok(())
    }),
    value("cmdprio_percentage", |d, v| {
        let p = &mut d.spec.priority;
        p.cmd_options.push("cmdprio_percentage");
        per_direction_u32(v, &mut p.percentage, |t| values::count_in(t, 1024, 0, 100))
    }),
    value("cmdprio_class", |d, v| {
        let p = &mut d.spec.priority;
        p.cmd_options.push("cmdprio_class");
        let mut classes = p.cmd_class.map(u32::from);
        per_direction_u32(v, &mut classes, |t| values::count_in(t, 1024, 1, 3))?;
        p.cmd_class = classes.map(|c| c as u8);
        Ok(())
    }),
    value("cmdprio", |d, v| {
        let p = &mut d.spec.priority;
        p.cmd_options.push("cmdprio");
        let mut levels = p.cmd_level.map(u32::from);
        per_direction_u32(v, &mut levels, |t| values::count_in(t, 1024, 0, 7))?;
        p.cmd_level = levels.map(|l| l as u8);
        Ok(())
    }),
    value("cmdprio_bssplit", |d, v| {
        let kb_base = d.kb_base;
        let p = &mut d.spec.priority;
        p.cmd_options.push("cmdprio_bssplit");
        let parts: Vec<&str> = v.split(',').collect();
        for (dir, list) in p.bssplit.iter_mut().enumerate() {
            // One list serves both directions; a third (trim) is ignored, as in fio.
            let text = parts.get(dir).or(parts.first()).copied().unwrap_or("");
            *list = priority_splits(text, kb_base)?;
        }
        Ok(())
    }),
    // ---- trace replay (fio's iolog.c, blktrace.c) ----
    value("read_iolog", |d, v| {
        if v.is_empty() {
            return Err("allowed a trace file (an iolog or blktrace file), or several separated by ':'".into());
        }
        replay(d).paths = v.split(':').map(str::to_string).collect();
        Ok(())
    }),
    flag("replay_no_stall", |d, v| {
        replay(d).options.no_stall = values::boolean(v)?;
        Ok(())
    }),
    value("replay_time_scale", |d, v| {
        replay(d).options.time_scale_pct = values::count_in(v, d.kb_base, 1, u64::from(u32::MAX))?;
        Ok(())
    }),
    value("replay_align", |d, v| {
        let align = values::size(v, d.kb_base)?;
        if !align.is_power_of_two() {
            return Err(format!("'{v}': allowed a power of two, e.g. 4096"));
        }
        replay(d).options.align = align;
        Ok(())
    }),
    value("replay_scale", |d, v| {
        replay(d).options.scale = values::count_in(v, d.kb_base, 1, u64::from(u32::MAX))?;
        Ok(())
    }),
    value("replay_skip", |d, v| {
        let mut skip = [false; 4];
        for kind in v.split(',') {
            skip[match values::one_of(kind, &["read", "write", "trim", "sync"])? {
                "read" => 0,
                "write" => 1,
                "trim" => 2,
                _ => 3,
            }] = true;
        }
        replay(d).options.skip = skip;
        Ok(())
    }),
    // Every file of a trace is the namespace already: the target is the drive.
    value("replay_redirect", |_, v| {
        if v.is_empty() {
            return Err("allowed a device path, e.g. /dev/nvme0n1".into());
        }
        Ok(())
    }),
    value("merge_blktrace_file", |d, v| {
        if v.is_empty() {
            return Err("allowed a file to write the merged blktrace to".into());
        }
        replay(d).merge_into = Some(v.to_string());
        Ok(())
    }),
    value("merge_blktrace_scalars", |d, v| {
        replay(d).merge_scalars = merge_list(v, "percentages, e.g. 50:100")?;
        Ok(())
    }),
    value("merge_blktrace_iters", |d, v| {
        replay(d).merge_iters = merge_list(v, "counts, e.g. 1:3")?;
        Ok(())
    }),
    // Traces are streamed, never read whole.
    value("read_iolog_chunked", no_effect_flag),
    value("write_iolog", |d, v| {
        if v.is_empty() {
            return Err("allowed a file to write the iolog to".into());
        }
        d.spec.write_iolog = Some(v.to_string());
        Ok(())
    }),
    // ---- errors: the twin's I/O never fails, so there is none to continue after or ignore ----
    value("continue_on_error", |_, v| {
        values::one_of(v, &["none", "read", "write", "io", "verify", "all", "0", "1"]).map(drop)
    }),
    value("ignore_error", |_, v| {
        // Up to three ':'-separated lists (read, write, verify) of errno names or numbers.
        let lists: Vec<&str> = v.split(':').collect();
        if lists.len() > 3 {
            return Err(format!("'{v}': allowed up to three ':'-separated lists (read, write, verify)"));
        }
        for e in lists.iter().flat_map(|l| l.split(',')).filter(|e| !e.is_empty()) {
            let known = e.starts_with('E') && e[1..].chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit());
            if !known && e.parse::<u32>().is_err() {
                return Err(format!("'{e}': allowed errno names (EIO, ENOSPC) or numbers"));
            }
        }
        Ok(())
    }),
    value("error_dump", no_effect_flag),
    // ---- verification (the twin keeps no data: blocks are read back and always match) ----
    value("verify", |d, v| {
        d.spec.verify.method = verify_method(v)?;
        Ok(())
    }),
    value("do_verify", |d, v| {
        d.spec.verify.do_verify = values::boolean(v)?;
        Ok(())
    }),
    flag("verify_only", |d, v| {
        d.spec.verify.only = values::boolean(v)?;
        Ok(())
    }),
    value("verify_backlog", |d, v| {
        d.spec.verify.backlog = values::count(v, d.kb_base)?;
        Ok(())
    }),
    value("verify_backlog_batch", |d, v| {
        d.spec.verify.backlog_batch = values::count(v, d.kb_base)?;
        Ok(())
    }),
    value("verify_async", |d, v| {
        d.spec.verify.offloaded = values::count_in(v, d.kb_base, 0, 1024)? > 0;
        Ok(())
    }),
    value("verify_interval", |d, v| {
        // fio's minimum: two verify headers (2 × 40 bytes).
        d.spec.verify.interval = values::size(v, d.kb_base)?;
        if d.spec.verify.interval < 80 {
            return Err(format!("'{v}': allowed 80 bytes (two verify headers) or more"));
        }
        Ok(())
    }),
    // What is written and compared, not how long it takes.
    value("verify_offset", |d, v| {
        if values::size(v, d.kb_base)? < 40 {
            return Err(format!("'{v}': allowed 40 bytes (one verify header) or more"));
        }
        Ok(())
    }),
    value("verify_pattern", |_, v| {
        if v.is_empty() {
            return Err("allowed a pattern: a hex number (0xaa55), a quoted string or a decimal number".into());
        }
        Ok(())
    }),
    value("verify_fatal", no_effect_flag),
    value("verify_dump", no_effect_flag),
    value("verify_async_cpus", |_, v| values::cpu_list(v).map(drop)),
    value("experimental_verify", no_effect_flag),
    value("verify_state_load", no_effect_flag),
    value("verify_state_save", no_effect_flag),
    // Deprecated in fio 3.33: accepted and ignored there too.
    value("verifysort", |_, _| Ok(())),
    value("verifysort_nr", |_, _| Ok(())),
    // ---- latency target and limits ----
    value("latency_target", |d, v| {
        latency_target(d).target_ns = values::time_ns(v, DefaultTimeUnit::Microseconds)?;
        Ok(())
    }),
    value("latency_window", |d, v| {
        latency_target(d).window_ns = values::time_ns(v, DefaultTimeUnit::Microseconds)?;
        Ok(())
    }),
    value("latency_percentile", |d, v| {
        let pct = values::decimal(v)?;
        if !(0.0..=100.0).contains(&pct) {
            return Err(format!("'{v}': allowed 0 to 100"));
        }
        latency_target(d).percentile = pct;
        Ok(())
    }),
    value("latency_run", |d, v| {
        latency_target(d).keep_adjusting = values::boolean(v)?;
        Ok(())
    }),
    value("max_latency", |d, v| {
        per_direction_limit(v, &mut d.spec.max_latency_ns, |t| values::time_ns(t, DefaultTimeUnit::Microseconds))
    }),
    // ---- flows (fio's flow.c) ----
    value("flow_id", |d, v| {
        flow(d).id = values::count_in(v, d.kb_base, 0, u64::from(u32::MAX))? as u32;
        Ok(())
    }),
    value("flow", |d, v| {
        flow(d).weight = values::count_in(v, d.kb_base, 0, u64::from(u32::MAX))? as u32;
        Ok(())
    }),
    value("flow_sleep", |d, v| {
        flow(d).sleep_ns = values::time_ns(v, DefaultTimeUnit::Microseconds)?;
        Ok(())
    }),
    // Deprecated in fio 3.33 (flow control has no watermark any more): accepted and ignored.
    value("flow_watermark", |_, _| Ok(())),
    // ---- accepted, with no effect on a simulated run (values still checked) ----
    // Processes and threads cost the same here; fio's own clock and statistics switches
    // change what fio spends, not what the drive does; data contents are not modelled.
    flag("thread", no_effect_flag),
    value("description", |_, _| Ok(())),
    flag("gtod_reduce", no_effect_flag),
    flag("disable_lat", no_effect_flag),
    flag("disable_clat", no_effect_flag),
    flag("disable_slat", no_effect_flag),
    alias(flag("disable_bw_measurement", no_effect_flag), &["disable_bw"]),
    value("per_job_logs", no_effect_flag),
    value("clocksource", |_, v| values::one_of(v, &["gettimeofday", "clock_gettime", "cpu"]).map(drop)),
    value("random_generator", |_, v| values::one_of(v, &["tausworthe", "lfsr", "tausworthe64"]).map(drop)),
    value("nice", |_, v| values::plain_integer(v.trim_start_matches('-')).map(drop)),
    flag("zero_buffers", no_effect_flag),
    flag("refill_buffers", no_effect_flag),
    flag("scramble_buffers", no_effect_flag),
    value("buffer_pattern", |_, _| Ok(())),
    value("buffer_compress_percentage", |_, v| values::count_in(v, 1024, 0, 100).map(drop)),
    value("buffer_compress_chunk", |_, v| values::size(v, 1024).map(drop)),
    value("dedupe_percentage", |_, v| values::count_in(v, 1024, 0, 100).map(drop)),
    value("dedupe_mode", |_, v| values::one_of(v, &["repeat", "working_set"]).map(drop)),
    value("dedupe_working_set_percentage", |_, v| values::count_in(v, 1024, 0, 100).map(drop)),
    value("dedupe_global", no_effect_flag),
    // Every stream of a run is seeded from its seed whatever these say; fio's random map,
    // buffers and identity do not touch the drive.
    flag("allrandrepeat", no_effect_flag),
    flag("softrandommap", no_effect_flag),
    flag("allow_mounted_write", no_effect_flag),
    value("lockmem", |d, v| values::size(v, d.kb_base).map(drop)),
    alias(
        value("mem", |_, v| {
            let kind = v.split_once(':').map_or(v, |(kind, _)| kind);
            values::one_of(kind, &["malloc", "shm", "shmhuge", "mmap", "mmaphuge", "mmapshared", "cudamalloc"])
                .map(drop)
        }),
        &["iomem"],
    ),
    value("iomem_align", |d, v| values::size(v, d.kb_base).map(drop)),
    value("gtod_cpu", |_, v| values::plain_integer(v).map(drop)),
    value("uid", |_, v| values::plain_integer(v).map(drop)),
    value("gid", |_, v| values::plain_integer(v).map(drop)),
    // The host model has no I/O scheduler costs: NVMe's default is none.
    value("ioscheduler", |_, v| {
        if v.is_empty() { Err("needs a scheduler name (none, mq-deadline, kyber, bfq)".into()) } else { Ok(()) }
    }),
    // Deprecated in fio 3.33: accepted and ignored, as fio does.
    value("rwmixcycle", |_, _| Ok(())),
    value("unit_base", |_, v| match v {
        "0" | "1" => Ok(()),
        "8" => Err("the reports are in bytes; bits (8) are not supported".into()),
        _ => Err("allowed 0 (bytes), 1 (bytes) or 8 (bits)".into()),
    }),
    value("significant_figures", |d, v| {
        d.spec.significant_figures = values::count_in(v, d.kb_base, 1, 10)? as u8;
        Ok(())
    }),
    // Which latencies' percentiles the report shows (all three histograms are always kept).
    flag("clat_percentiles", |d, v| {
        d.spec.percentiles_of.clat = values::boolean(v)?;
        Ok(())
    }),
    flag("lat_percentiles", |d, v| {
        d.spec.percentiles_of.lat = values::boolean(v)?;
        Ok(())
    }),
    flag("slat_percentiles", |d, v| {
        d.spec.percentiles_of.slat = values::boolean(v)?;
        Ok(())
    }),
    value("log_prio", |d, v| {
        d.spec.log_prio = values::boolean(v)?;
        Ok(())
    }),
    // File handling the model does not distinguish: every file is open for the whole job,
    // allocated at once and never locked against the job's own clones.
    value("openfiles", |_, v| values::count_in(v, 1024, 1, u64::from(u32::MAX)).map(drop)),
    value("fallocate", |_, v| values::one_of(v, &["none", "native", "posix", "keep", "truncate", "0", "1"]).map(drop)),
    OptionDef {
        priority: 1,
        ..value("lockfile", |_, v| values::one_of(v, &["none", "exclusive", "readwrite"]).map(drop))
    },
    value("allow_file_create", no_effect_flag),
    value("unique_filename", no_effect_flag),
    value("unlink_each_loop", no_effect_flag),
    value("create_serialize", no_effect_flag),
    value("create_fsync", no_effect_flag),
    // An option of fio's tiobench profile that fio accepts in any job and ignores there.
    value("threads", |_, v| values::plain_integer(v).map(drop)),
];

/// `steadystate=` / `ss=`: `iops`, `iops_slope`, `bw` or `bw_slope`, then `:` and a limit,
/// `%` of the mean or absolute (IOPS, or bytes/s with fio's size suffixes), as fio's
/// `str_steadystate_cb`.
fn steadystate(d: &mut JobDraft, v: &str) -> Result<(), String> {
    const ALLOWED: &str = "allowed iops, iops_slope, bw or bw_slope with a limit, e.g. iops_slope:0.1% or bw:10m";
    let (kind, limit) = v.split_once(':').ok_or_else(|| format!("a threshold must follow the criterion; {ALLOWED}"))?;
    let (bandwidth, slope) = match kind {
        "iops" => (false, false),
        "iops_slope" => (false, true),
        "bw" => (true, false),
        "bw_slope" => (true, true),
        _ => return Err(ALLOWED.into()),
    };
    let ss = &mut d.spec.steadystate;
    (ss.bandwidth, ss.slope) = (bandwidth, slope);
    if let Some(pct) = limit.strip_suffix('%') {
        ss.limit = values::decimal(pct.trim_end())?;
        ss.percent = true;
    } else if bandwidth {
        ss.limit = values::size(limit, d.kb_base)? as f64;
        ss.percent = false;
    } else {
        ss.limit = values::decimal(limit)?;
        ss.percent = false;
    }
    Ok(())
}

/// `file_service_type=`: `random`, `roundrobin` or `sequential` with an optional `:N`
/// (I/Os per file before switching), or a skewed draw (`zipf:θ`, `pareto:h`,
/// `normal:σ%`/`gauss:σ%`, each with an optional `:center`), as fio's `str_fst_cb`.
fn file_service_type(d: &mut JobDraft, v: &str) -> Result<(), String> {
    let (kind, params) = match v.split_once(':') {
        Some((kind, params)) => (kind, Some(params)),
        None => (v, None),
    };
    let every = || -> Result<u32, String> {
        params.map_or(Ok(1), |n| values::count_in(n, 1024, 1, u64::from(u32::MAX)).map(|n| n as u32))
    };
    let skewed = |default: f64| -> Result<(f64, Option<f64>), String> {
        let numbers = match params {
            None => Vec::new(),
            Some(p) => p.split(':').map(values::decimal).collect::<Result<Vec<f64>, String>>()?,
        };
        match numbers.as_slice() {
            [] => Ok((default, None)),
            [value] => Ok((*value, None)),
            [value, center] if (0.0..=1.0).contains(center) => Ok((*value, Some(*center))),
            _ => Err("the optional center after the parameter must be in [0, 1]".into()),
        }
    };
    d.spec.files.service = match kind {
        "roundrobin" => FileService::RoundRobin { every: every()? },
        "random" => FileService::Random { every: every()? },
        "sequential" => FileService::Sequential,
        "zipf" => match skewed(1.1)? {
            (theta, center) if theta > 0.0 && (theta - 1.0).abs() > f64::EPSILON => {
                FileService::Skewed(Distribution::Zipf { theta, center })
            }
            _ => return Err("zipf theta must be > 0 and not 1".into()),
        },
        "pareto" => match skewed(0.2)? {
            (h, center) if h > 0.0 && h < 1.0 => FileService::Skewed(Distribution::Pareto { h, center }),
            _ => return Err("pareto h must be in (0, 1)".into()),
        },
        "normal" | "gauss" => match skewed(0.0)? {
            (sigma_pct, center) if (0.0..100.0).contains(&sigma_pct) => {
                FileService::Skewed(Distribution::Normal { sigma_pct, center: center.unwrap_or(0.5) })
            }
            _ => return Err("normal deviation must be in [0, 100)".into()),
        },
        _ => {
            return Err(
                "allowed random, roundrobin, sequential (each with an optional :N), zipf, pareto, normal, gauss".into(),
            );
        }
    };
    Ok(())
}

/// Sets the per-direction limits `v` gives (`read[,write][,trim]`, 0 meaning none),
/// leaving the directions it omits as they were.
fn per_direction_limit(
    v: &str,
    limits: &mut [Option<u64>; 3],
    parse: impl Fn(&str) -> Result<u64, String>,
) -> Result<(), String> {
    for (dir, part) in values::per_direction(v)?.into_iter().enumerate() {
        if let Some(text) = part {
            limits[dir] = Some(parse(text)?).filter(|&n| n > 0);
        }
    }
    Ok(())
}

/// A switch with no effect on a simulated run: its value must still be 0 or 1.
/// `cmdprio_percentage=`-style per-direction integers (read, write): one value sets both.
fn per_direction_u32(v: &str, out: &mut [u32; 2], parse: impl Fn(&str) -> Result<u64, String>) -> Result<(), String> {
    let parts: Vec<&str> = v.split(',').collect();
    if parts.len() > 2 {
        return Err(format!("'{v}': allowed one value, or one for reads and one for writes (r,w)"));
    }
    for (d, slot) in out.iter_mut().enumerate() {
        let text = parts.get(d).or(parts.first()).copied().unwrap_or("");
        if !text.is_empty() {
            *slot = parse(text)? as u32;
        }
    }
    Ok(())
}

/// One direction of `cmdprio_bssplit=`: `bs/percent[/class/level]` entries separated by
/// `:` (fio's `split_parse_prio_ddir`): zero shares are dropped, entries are ordered by
/// size, and each size's shares may not add up to more than 100.
fn priority_splits(text: &str, kb_base: u64) -> Result<Vec<PrioritySplit>, String> {
    const FORMAT: &str =
        "allowed entries bs/percent or bs/percent/class/level separated by ':', e.g. 64k/40:1m/100/1/0";
    let mut splits = Vec::new();
    for entry in text.split(':').take_while(|e| !e.is_empty()) {
        let fields: Vec<&str> = entry.split('/').collect();
        let number = |k: usize| -> Result<u64, String> {
            fields
                .get(k)
                .filter(|f| !f.is_empty())
                .map_or(Ok(0), |f| values::plain_integer(f))
                .map_err(|_| format!("'{entry}': {FORMAT}"))
        };
        let bytes = values::size(fields[0], kb_base).map_err(|_| format!("'{entry}': {FORMAT}"))?;
        let priority = match fields.len() {
            1 | 2 => None,
            4 => Some(IoPriority { class: number(2)?.min(3) as u8, level: number(3)?.min(7) as u8 })
                .map(|p| if p.class == 0 { IoPriority { class: 2, ..p } } else { p }),
            _ => return Err(format!("'{entry}': {FORMAT}")),
        };
        let percent = number(1)?.min(100) as u32;
        if percent > 0 {
            splits.push(PrioritySplit { bytes, percent, priority });
        }
    }
    if splits.len() > 64 {
        return Err(format!("'{text}': at most 64 entries"));
    }
    splits.sort_by_key(|s| s.bytes);
    for group in splits.chunk_by(|a, b| a.bytes == b.bytes) {
        if group.iter().map(|s| s.percent).sum::<u32>() > 100 {
            return Err(format!("'{text}': the shares for {} bytes add up to more than 100", group[0].bytes));
        }
    }
    Ok(splits)
}

/// A NUMA node list (`0-1`, `0,2`), checked against the host when the job runs; `all`
/// (every node of the host) is the empty list.
fn numa_nodes(v: &str) -> Result<Vec<u32>, String> {
    if v == "all" {
        return Ok(Vec::new());
    }
    values::cpu_list(v)
        .map_err(|_| format!("'{v}': allowed NUMA node numbers and ranges, e.g. 0 or 0-1 or 0,2, or all"))
}

/// `verify=`: fio's names for its methods (`0` turns verification off).
fn verify_method(v: &str) -> Result<Option<VerifyMethod>, String> {
    use VerifyMethod::{
        Crc7, Crc16, Crc32, Crc32c, Crc64, Md5, Meta, Null, Pattern, Sha1, Sha3_224, Sha3_256, Sha3_384, Sha3_512,
        Sha256, Sha512, Xxhash,
    };
    const METHODS: &[(&str, VerifyMethod)] = &[
        ("md5", Md5),
        ("crc64", Crc64),
        ("crc32", Crc32),
        ("crc32c-intel", Crc32c),
        ("crc32c", Crc32c),
        ("crc16", Crc16),
        ("crc7", Crc7),
        ("sha1", Sha1),
        ("sha256", Sha256),
        ("sha512", Sha512),
        ("sha3-224", Sha3_224),
        ("sha3-256", Sha3_256),
        ("sha3-384", Sha3_384),
        ("sha3-512", Sha3_512),
        ("xxhash", Xxhash),
        ("meta", Meta),
        ("pattern", Pattern),
        ("null", Null),
    ];
    if v == "0" {
        return Ok(None);
    }
    METHODS.iter().find(|(name, _)| *name == v).map(|&(_, m)| Some(m)).ok_or_else(|| {
        let names: Vec<&str> = METHODS.iter().map(|(name, _)| *name).collect();
        format!("'{v}': allowed 0, {}", names.join(", "))
    })
}

/// A `:`-separated list of positive numbers (fio reads floats and keeps their integer part).
fn merge_list(v: &str, what: &str) -> Result<Vec<u64>, String> {
    v.split(':')
        .map(|x| values::decimal(x).ok().filter(|f| *f >= 1.0 && *f < 1e9).map(|f| f as u64))
        .collect::<Option<Vec<u64>>>()
        .ok_or_else(|| format!("'{v}': allowed ':'-separated {what}"))
}

/// The job's replay, made (with no trace yet) by whichever of its options comes first.
fn replay(d: &mut JobDraft) -> &mut ReplaySpec {
    d.spec.replay.get_or_insert_with(|| ReplaySpec {
        paths: Vec::new(),
        options: ReplayOptions::default(),
        merge_into: None,
        merge_scalars: Vec::new(),
        merge_iters: Vec::new(),
    })
}

/// The job's latency target, made with fio's defaults (a 0 target, no window, 100 %) by
/// whichever of its options comes first.
fn latency_target(d: &mut JobDraft) -> &mut LatencyTarget {
    d.spec.latency_target.get_or_insert(LatencyTarget {
        target_ns: 0,
        window_ns: 0,
        percentile: 100.0,
        keep_adjusting: false,
    })
}

/// The job's flow, made with fio's defaults (id 0, weight 0, no sleep) by whichever of its
/// options comes first.
fn flow(d: &mut JobDraft) -> &mut FlowSpec {
    d.spec.flow.get_or_insert(FlowSpec { id: 0, weight: 0, sleep_ns: 0 })
}

fn no_effect_flag(_: &mut JobDraft, v: &str) -> Result<(), String> {
    values::boolean(v).map(drop)
}

/// `rw=` / `readwrite=`, with fio's optional `:N` modifier: for a sequential pattern a
/// size added to each next offset (negative reads backwards), for a random one how many
/// I/Os share a random draw (see `rw_sequencer`).
fn rw(d: &mut JobDraft, v: &str) -> Result<(), String> {
    let (pattern, modifier) = match v.split_once(':') {
        Some((p, m)) => (p, Some(m)),
        None => (v, None),
    };
    d.spec.rw = rw_pattern(pattern)?;
    (d.spec.rw_seq_add, d.spec.rw_seq_nr) = (0, 1);
    let Some(m) = modifier else { return Ok(()) };
    if d.spec.rw.is_random() {
        d.spec.rw_seq_nr =
            m.parse::<u32>().ok().filter(|&n| n > 0).ok_or_else(|| {
                format!("'{m}': a random pattern's modifier counts I/Os per random offset, 1 or more")
            })?;
    } else {
        let (negative, magnitude) = m.strip_prefix('-').map_or((false, m), |rest| (true, rest));
        let bytes = values::size(magnitude, d.kb_base)
            .map_err(|e| format!("'{m}': a sequential pattern's modifier is a size to skip ({e})"))?;
        let bytes = i64::try_from(bytes).map_err(|_| format!("'{m}': too large"))?;
        d.spec.rw_seq_add = if negative { -bytes } else { bytes };
    }
    Ok(())
}

/// fio's spelling of an access pattern.
fn rw_pattern(v: &str) -> Result<RwPattern, String> {
    Ok(match v {
        "read" => RwPattern::Read,
        "write" => RwPattern::Write,
        "trim" => RwPattern::Trim,
        "randread" => RwPattern::RandRead,
        "randwrite" => RwPattern::RandWrite,
        "randtrim" => RwPattern::RandTrim,
        "rw" | "readwrite" => RwPattern::ReadWrite,
        "randrw" => RwPattern::RandRw,
        "trimwrite" => RwPattern::TrimWrite,
        "randtrimwrite" => return Err("randtrimwrite is not supported by ssdtwin".into()),
        _ => {
            return Err(
                "allowed read, write, trim, randread, randwrite, randtrim, rw, readwrite, randrw, trimwrite".into()
            );
        }
    })
}

/// Checks one block size.
fn block_bytes(text: &str, kb_base: u64) -> Result<u64, String> {
    let bytes = values::size(text, kb_base)?;
    if (1..=MAX_BLOCK_BYTES).contains(&bytes) { Ok(bytes) } else { Err("allowed 1 byte to 256 MiB".into()) }
}

/// `bs=` / `blocksize=`: one size per direction.
fn bs(d: &mut JobDraft, v: &str) -> Result<(), String> {
    for (dir, part) in values::per_direction(v)?.into_iter().enumerate() {
        let Some(text) = part else { continue };
        if !text.starts_with('(') && text.contains(['-', ':']) {
            // fio 3.33 would read `bs=1k-4k` as 1k reads and 4k writes.
            return Err("a range of block sizes needs bsrange=, e.g. bsrange=1k-4k".into());
        }
        d.bs_bytes[dir] = block_bytes(text, d.kb_base)?;
    }
    Ok(())
}

/// `bsrange=` / `blocksize_range=`: one range per direction.
fn bsrange(d: &mut JobDraft, v: &str) -> Result<(), String> {
    for (dir, part) in values::per_direction(v)?.into_iter().enumerate() {
        let Some(text) = part else { continue };
        let (min, max) = values::size_range(text, d.kb_base)?;
        if min == 0 || max > MAX_BLOCK_BYTES {
            return Err("allowed 1 byte to 256 MiB".into());
        }
        d.bs_range[dir] = Some((min, max));
    }
    Ok(())
}

/// `size=` / `io_size=`: bytes or 1–100 %; 0 means "not set", as in fio.
fn budget(v: &str, kb_base: u64) -> Result<Option<SizeSpec>, String> {
    match values::size_or_percent(v, kb_base)? {
        SizeOrPercent::Bytes(0) | SizeOrPercent::Zones(0) => Ok(None),
        SizeOrPercent::Bytes(b) => Ok(Some(SizeSpec::Bytes(b))),
        SizeOrPercent::Percent(0) => Err("allowed a size or 1%..100%".into()),
        SizeOrPercent::Percent(p) => Ok(Some(SizeSpec::Percent(f64::from(p)))),
        SizeOrPercent::Zones(n) => Ok(Some(SizeSpec::Zones(n))),
    }
}

/// `offset=` / `offset_increment=`: bytes or 0–100 %.
fn place(v: &str, kb_base: u64) -> Result<SizeSpec, String> {
    Ok(match values::size_or_percent(v, kb_base)? {
        SizeOrPercent::Bytes(b) => SizeSpec::Bytes(b),
        SizeOrPercent::Percent(p) => SizeSpec::Percent(f64::from(p)),
        SizeOrPercent::Zones(n) => SizeSpec::Zones(n),
    })
}

/// `percentile_list=`: up to 20 values in (0, 100], sorted as fio sorts them.
fn percentile_list(v: &str) -> Result<Vec<f64>, String> {
    let mut list = Vec::new();
    for text in v.split(':') {
        match values::decimal(text) {
            Ok(p) if p > 0.0 && p <= 100.0 => list.push(p),
            _ => return Err(format!("'{text}' is not a percentile; each must be in (0, 100], e.g. 99.9")),
        }
    }
    if list.len() > 20 {
        return Err("at most 20 percentiles".into());
    }
    list.sort_by(f64::total_cmp);
    Ok(list)
}

/// What `random_distribution=` accepts.
const DISTRIBUTIONS: &str =
    "allowed random, zipf[:theta[:center]], pareto[:h[:center]], normal[:sigma%[:center]], zoned:..., zoned_abs:...";

/// `plids=`: values and ranges (`1,2-4`), each at most 0xFFFF, at most 128 of them, sorted
/// as fio sorts them (duplicates kept).
fn placement_ids(v: &str) -> Result<Vec<u16>, String> {
    let one = |t: &str| -> Result<u64, String> {
        let t = t.trim();
        let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
            Some(hex) => u64::from_str_radix(hex, 16),
            None => t.parse(),
        };
        parsed.map_err(|_| format!("{t:?} is not a placement identifier index (a whole number or a range a-b)"))
    };
    let mut ids = Vec::new();
    for piece in v.split(',') {
        let (first, last) = match piece.split_once('-') {
            Some((a, b)) => (one(a)?, one(b)?),
            None => (one(piece)?, one(piece)?),
        };
        if first > last {
            return Err(format!("the range {piece} runs backwards"));
        }
        if last > 0xFFFF {
            return Err("Placement IDs cannot exceed 0xFFFF".into());
        }
        for id in first..=last {
            if ids.len() == MAX_PLACEMENT_IDS {
                return Err(format!("only {MAX_PLACEMENT_IDS} IDs supported"));
            }
            ids.push(id as u16);
        }
    }
    ids.sort_unstable();
    Ok(ids)
}

/// fio's `ZBD_MAX_WRITE_ZONES`: the most zones `max_open_zones` may name.
const ZBD_MAX_WRITE_ZONES: u64 = 4096;

/// `zone_reset_threshold=` / `zone_reset_frequency=`: fio's float option of 0 to 1.
fn zone_fraction(v: &str) -> Result<f64, String> {
    let x = values::decimal(v)?;
    if (0.0..=1.0).contains(&x) { Ok(x) } else { Err("allowed 0 to 1".into()) }
}

/// `max_open_zones=` / `job_max_open_zones=`: 0 to fio's limit.
fn zone_count(v: &str, option: &str) -> Result<u32, String> {
    let n: u64 = v.trim().parse().map_err(|_| "expected a whole number".to_string())?;
    if n > ZBD_MAX_WRITE_ZONES {
        return Err(format!("'{option}' value is larger than {ZBD_MAX_WRITE_ZONES}"));
    }
    Ok(n as u32)
}

/// fio's `FIO_MAX_DP_IDS`.
const MAX_PLACEMENT_IDS: usize = 128;

/// `random_distribution=`. Per-direction lists work only for `zoned`/`zoned_abs` in fio
/// 3.33 (it refuses `zipf:1.2,zipf:0.8`); the other models apply to all directions.
fn random_distribution(d: &mut JobDraft, v: &str) -> Result<(), String> {
    let (model, params) = match v.split_once(':') {
        Some((model, params)) => (model, Some(params)),
        None => (v, None),
    };
    if let absolute @ ("zoned" | "zoned_abs") = model {
        let list = params.ok_or("zoned needs zones, e.g. zoned:60/10:40/90")?;
        for (dir, part) in values::per_direction(list)?.into_iter().enumerate() {
            if let Some(zones) = part {
                let zones = splits::zones(zones, d.kb_base, absolute == "zoned_abs")?;
                d.spec.random_distribution[dir] = Distribution::Zoned(zones);
            }
        }
        return Ok(());
    }
    if params.is_some_and(|p| p.contains(',')) {
        return Err("per-direction lists (',') work only with zoned and zoned_abs".into());
    }
    let numbers = match params {
        None => Vec::new(),
        Some(p) => p.split(':').map(values::decimal).collect::<Result<Vec<f64>, String>>()?,
    };
    let (first, center) = match numbers.as_slice() {
        [] => (None, None),
        [first] => (Some(*first), None),
        [first, center] => (Some(*first), Some(*center)),
        _ => return Err(DISTRIBUTIONS.into()),
    };
    if center.is_some_and(|c| !(0.0..=1.0).contains(&c)) {
        return Err("the center must be in [0, 1]".into());
    }
    // Defaults are fio's FIO_DEF_ZIPF (1.1) and FIO_DEF_PARETO (0.2).
    let dist = match model {
        "random" if params.is_none() => Distribution::Random,
        "zipf" => match first.unwrap_or(1.1) {
            theta if theta > 0.0 && (theta - 1.0).abs() > f64::EPSILON => Distribution::Zipf { theta, center },
            _ => return Err("zipf theta must be > 0 and not 1".into()),
        },
        "pareto" => match first.unwrap_or(0.2) {
            h if h > 0.0 && h < 1.0 => Distribution::Pareto { h, center },
            _ => return Err("pareto h must be in (0, 1)".into()),
        },
        "normal" => match first.unwrap_or(0.0) {
            sigma_pct if sigma_pct < 100.0 => Distribution::Normal { sigma_pct, center: center.unwrap_or(0.5) },
            _ => return Err("normal deviation must be in [0, 100)".into()),
        },
        _ => return Err(DISTRIBUTIONS.into()),
    };
    d.spec.random_distribution = [dist.clone(), dist.clone(), dist];
    Ok(())
}

/// fio's program options (not job options), refused with a pointer to where they belong.
const PROGRAM_OPTIONS: &[&str] = &[
    "output",
    "output-format",
    "latency-log",
    "bandwidth-log",
    "minimal",
    "append-terse",
    "version",
    "help",
    "cmdhelp",
    "enghelp",
    "showcmd",
    "readonly",
    "eta",
    "eta-interval",
    "eta-newline",
    "debug",
    "parse-only",
    "inflate-log",
    "alloc-size",
    "profile",
    "warnings-fatal",
    "max-jobs",
    "terse-version",
    "server",
    "daemonize",
    "client",
    "remote-config",
    "cpuclock-test",
    "crctest",
    "memcpytest",
    "idle-prof",
    "status-interval",
    "trigger-file",
    "trigger-timeout",
    "trigger",
    "trigger-remote",
    "aux-path",
    "merge-blktrace-only",
];

/// Advice for options people often use and ssdtwin does not simulate.
const HINTS: &[(&[&str], &str)] = &[
    (
        &["write_barrier", "sync_file_range"],
        "barrier writes and sync_file_range are not modelled; use fsync=, fdatasync= or sync=1",
    ),
    (
        &["trim_percentage", "trim_verify_zero", "trim_backlog", "trim_backlog_batch"],
        "trimming written blocks to verify they read back as zeros is not modelled",
    ),
    (&["opendir"], "it reads an existing directory tree; name the files with filename=, directory= and nrfiles="),
    (&["file_append"], "appending to existing files is not modelled; files are laid out from their start"),
    (
        &[
            "hostname",
            "port",
            "protocol",
            "serverip",
            "uri",
            "nfs_url",
            "clientname",
            "pool",
            "cont",
            "volume",
            "brick",
            "http_verbose",
            "http_host",
            "http_user",
            "http_pass",
            "http_mode",
            "http_s3_key",
            "http_s3_keyid",
            "http_s3_region",
            "http_swift_auth_token",
            "busy_poll",
            "listen",
            "pingpong",
            "interface",
            "ttl",
            "namenode",
            "hdfsdirectory",
            "conf",
            "gpu_dev_ids",
            "cuda_io",
            "rdma_io",
        ],
        "it is an option of an engine that does I/O over a network or to a GPU, which ssdtwin does not model; \
         serve the twin with 'ssdtwin serve' to reach it over NBD",
    ),
    (
        &["zonecapacity"],
        "it sets the zone capacity of fio's emulated zones; a zoned drive's (a profile with [zns]) comes from the drive",
    ),
    (&["gpu_dev_id"], "it is an option of an engine that does I/O to a GPU, which ssdtwin does not model"),
    (
        &["bwavgtime", "iopsavgtime"],
        "bandwidth and IOPS samples are taken over fio's default 500 ms; log_avg_msec sets the logs' windows",
    ),
    (&["stats", "disk_util"], "every job's statistics and the drive's are always gathered and reported"),
    (
        &[
            "log_entries",
            "log_compression",
            "log_compression_cpus",
            "log_store_compressed",
            "log_alternate_epoch",
            "log_alternate_epoch_clock_id",
            "log_unix_epoch",
            "log_max_value",
        ],
        "logs are written whole, uncompressed, with fio's default timestamps and averaged values",
    ),
    (
        &["cgroup", "cgroup_weight", "cgroup_nodelete"],
        "control groups are not modelled; give the host's cores with --host-set cpu.cores",
    ),
    (&["exec_prerun", "exec_postrun"], "it runs a program around the job; ssdtwin runs no programs"),
    (
        &["percentage_random", "percentage_sequential"],
        "a mix of sequential and random offsets in one job is not modelled; run a sequential and a random job side by side",
    ),
    (
        &["bs_is_seq_rand", "bs_unaligned", "offset_align"],
        "block sizes are per direction and aligned as bs= gives them (blockalign= aligns random offsets)",
    ),
    (&["serialize_overlap"], "data contents are not modelled, so overlapping writes in flight need no ordering"),
    (&["rate_ignore_thinktime"], "thinktime counts against rate= here, as by fio's default"),
    (&["atomic", "write_hint"], "atomic writes and write-lifetime hints are not modelled"),
    (
        &["dp_scheme"],
        "it maps offsets to placement identifiers from a file (plid_select=scheme), which ssdtwin does not read; use plid_select=roundrobin or random",
    ),
    (&["block_error_percentiles"], "trim and zone error histograms are not kept"),
    (&["profile"], "fio's built-in job profiles (tiobench, act) are not modelled; write their jobs out instead"),
    (
        &[
            "sprandom",
            "spr_op",
            "spr_num_regions",
            "spr_cs",
            "num_range",
            "random_sequence_stride",
            "thinkcycles",
            "priohint",
            "verify_header_seed",
            "verify_pattern_interval",
            "verify_policy",
            "verify_write_sequence",
            "write_zone_remainder",
            "recover_zbd_write_error",
            "log_issue_time",
            "log_window_value",
            "job_start_clock_id",
            "filetype",
            "comm",
        ],
        "it came to fio after 3.33, the version whose options and output ssdtwin follows",
    ),
    (
        &["sg_write_mode", "hipri_percentage", "xnvme_async", "xnvme_sync", "xnvme_admin", "xnvme_be"],
        "it is an option of a passthrough engine (sg, xnvme), which ssdtwin does not model; use io_uring_cmd, io_uring or libaio",
    ),
    (&["donorname", "inplace"], "it is an option of the e4defrag engine, which ssdtwin does not run"),
    (
        &["skip_bad"],
        "it is an option of the mtd engine, which addresses raw flash through Linux MTD, not an NVMe namespace",
    ),
    (
        &["program", "arguments", "grace_time", "std_redirect"],
        "it is an option of the exec engine, which runs programs, not I/O",
    ),
    (
        &["cpuload", "cpuchunks", "cpumode", "exit_on_io_done"],
        "it is an option of the cpuio engine, which burns CPU and does no I/O",
    ),
    (&["ramp_size"], "use ramp_time= instead"),
];

/// The `hint` of [`JobError::Unsupported`](crate::workload::JobError::Unsupported) for
/// `name` ("; ..." or empty).
pub(super) fn unsupported_hint(name: &str, on_command_line: bool) -> String {
    if on_command_line && PROGRAM_OPTIONS.contains(&name) {
        return "; it is a fio program option, not a job option: give it to the ssdtwin fio command".into();
    }
    if let Some((_, hint)) = HINTS.iter().find(|(names, _)| names.contains(&name)) {
        return format!("; {hint}");
    }
    if let Some(close) = closest_supported(name) {
        return format!("; did you mean '{close}'?");
    }
    String::new()
}

/// The supported name (or alias) within two edits of `name`, if any.
fn closest_supported(name: &str) -> Option<&'static str> {
    OPTIONS
        .iter()
        .flat_map(|o| std::iter::once(o.name).chain(o.aliases.iter().copied()))
        .map(|candidate| (edit_distance(name, candidate), candidate))
        .filter(|&(distance, _)| distance <= 2)
        .min_by_key(|&(distance, _)| distance)
        .map(|(_, candidate)| candidate)
}

/// Levenshtein distance; O(|a|·|b|) time, O(|b|) memory.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1; b.len() + 1];
        for (j, &cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != cb);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        previous = current;
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::{BlockSize, Zone, ZoneSize};

    fn apply(d: &mut JobDraft, name: &str, v: &str) -> Result<(), String> {
        (lookup(name).expect("test uses a supported option").apply)(d, v)
    }

    fn job(options: &[(&str, &str)]) -> JobDraft {
        let mut d = JobDraft::defaults();
        for (name, v) in options {
            apply(&mut d, name, v).unwrap_or_else(|e| panic!("{name}={v}: {e}"));
        }
        d
    }

    #[test]
    fn options_with_no_effect_on_a_simulated_drive_are_accepted_and_their_values_checked() {
        // Each was refused with no reason before.
        let d = job(&[
            ("allrandrepeat", "1"),
            ("softrandommap", "1"),
            ("allow_mounted_write", "1"),
            ("lockmem", "1m"),
            ("mem", "mmaphuge:/hugepages/fio"),
            ("iomem", "malloc"),
            ("iomem_align", "4k"),
            ("gtod_cpu", "1"),
            ("uid", "0"),
            ("gid", "0"),
            ("ioscheduler", "mq-deadline"),
            ("rwmixcycle", "500"),
            ("unit_base", "1"),
        ]);
        assert_eq!(d.spec, JobDraft::defaults().spec, "none of them changes the job");
        assert!(apply(&mut JobDraft::defaults(), "unit_base", "8").unwrap_err().contains("bits"));
        assert!(apply(&mut JobDraft::defaults(), "mem", "vram").is_err());
        assert!(apply(&mut JobDraft::defaults(), "ioscheduler", "").is_err());
    }

    #[test]
    fn every_fio_3_33_option_is_taken_or_refused_with_a_reason() {
        // The names of fio 3.33's options (its options.c); several were refused with no
        // reason before (unified_rw_reporting, ioscheduler, significant_figures, ...).
        let names = include_str!("../../../../../../tests/data/fio-3.33/option-names.txt");
        assert!(names.lines().count() > 200);
        let bare: Vec<&str> =
            names.lines().filter(|n| lookup(n).is_none() && unsupported_hint(n, false).is_empty()).collect();
        assert!(bare.is_empty(), "refused without a reason: {bare:?}");
    }

    #[test]
    fn data_placement_options_are_fio_s() {
        let finished = |options: &[(&str, &str)]| job(options).finish();
        let spec = finished(&[("ioengine", "io_uring_cmd"), ("fdp", "1"), ("fdp_pli", "6,0x1,2-4")]).unwrap();
        let placement = spec.placement.expect("fdp=1 places writes");
        assert_eq!(placement.indices, Some(vec![1, 2, 3, 4, 6]), "ranges expanded and sorted, as fio sorts them");
        assert_eq!(placement.select, PlidSelect::RoundRobin, "fio's default");
        assert!(spec.direct, "passthrough I/O meets no page cache");
        let spec = finished(&[("ioengine", "io_uring_cmd"), ("dataplacement", "fdp"), ("plid_select", "random")]);
        assert_eq!(spec.unwrap().placement.unwrap().select, PlidSelect::Random);
        assert_eq!(finished(&[("plids", "1,2")]).unwrap().placement, None, "plids alone place nothing");
        let err = |options: &[(&str, &str)]| finished(options).unwrap_err().to_string();
        assert!(err(&[("fdp", "1")]).contains("engine (psync) lacks fetch ruhs"));
        assert!(
            err(&[("ioengine", "io_uring_cmd"), ("fdp", "1"), ("dataplacement", "none")])
                .contains("fdp=1 is not compatible with dataplacement={streams, none}")
        );
        assert!(err(&[("ioengine", "io_uring_cmd"), ("dataplacement", "streams")]).contains("streams"));
        let mut d = JobDraft::defaults();
        assert_eq!(apply(&mut d, "plids", "0-128").unwrap_err(), "only 128 IDs supported");
        assert_eq!(apply(&mut d, "plids", "65536").unwrap_err(), "Placement IDs cannot exceed 0xFFFF");
        assert!(apply(&mut d, "plid_select", "scheme").unwrap_err().contains("dp_scheme"));
        assert_eq!(apply(&mut d, "cmd_type", "scsi").unwrap_err(), "allowed nvme");
    }

    #[test]
    fn every_refused_fio_option_says_why() {
        let refused = [
            "bwavgtime",
            "iopsavgtime",
            "stats",
            "disk_util",
            "log_compression",
            "cgroup",
            "exec_prerun",
            "percentage_random",
            "bs_unaligned",
            "offset_align",
            "serialize_overlap",
            "rate_ignore_thinktime",
            "atomic",
            "block_error_percentiles",
            "zonecapacity",
            "dp_scheme",
            "sprandom",
        ];
        for name in refused {
            assert!(lookup(name).is_none(), "{name} is refused");
            assert!(unsupported_hint(name, false).len() > 10, "{name} says why");
        }
    }

    // ---- the table ----

    #[test]
    fn names_are_unique_and_aliases_resolve() {
        let mut names: Vec<&str> =
            OPTIONS.iter().flat_map(|o| std::iter::once(o.name).chain(o.aliases.iter().copied())).collect();
        let all = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all);
        assert_eq!(lookup("readwrite").map(|o| o.name), Some("rw"));
        assert_eq!(lookup("io_limit").map(|o| o.name), Some("io_size"));
        assert_eq!(lookup("wait_for_previous").map(|o| o.name), Some("stonewall"));
        assert!(lookup("write_barrier").is_none());
    }

    // ---- I/O type ----

    #[test]
    fn rw_patterns_and_refusals() {
        assert_eq!(job(&[("rw", "randrw")]).spec.rw, RwPattern::RandRw);
        assert_eq!(job(&[("readwrite", "readwrite")]).spec.rw, RwPattern::ReadWrite);
        let mut d = JobDraft::defaults();
        // fio's modifier: I/Os per random draw for a random pattern, a skip for a sequential one.
        let s = job(&[("rw", "randread:8"), ("rw_sequencer", "identical")]).spec;
        assert_eq!(
            (s.rw, s.rw_seq_nr, s.rw_seq_add, s.rw_sequencer),
            (RwPattern::RandRead, 8, 0, RwSequencer::Identical)
        );
        let s = job(&[("rw", "read:-8k")]).spec;
        assert_eq!((s.rw, s.rw_seq_nr, s.rw_seq_add), (RwPattern::Read, 1, -8192));
        assert_eq!(job(&[("rw", "read:-8k"), ("rw", "read")]).spec.rw_seq_add, 0);
        assert!(apply(&mut d, "rw", "write:lots").unwrap_err().starts_with("'lots': a sequential pattern's modifier"));
        assert_eq!(apply(&mut d, "rw_sequencer", "random"), Err("allowed sequential, identical".into()));
        assert_eq!(apply(&mut d, "rw", "randtrimwrite"), Err("randtrimwrite is not supported by ssdtwin".into()));
        assert!(apply(&mut d, "rw", "RandRead").is_err());
    }

    #[test]
    fn the_later_rwmix_option_wins() {
        assert_eq!(job(&[("rwmixread", "70"), ("rwmixwrite", "20")]).spec.rwmix_read, 80);
        assert_eq!(job(&[("rwmixwrite", "20"), ("rwmixread", "70")]).spec.rwmix_read, 70);
        assert_eq!(apply(&mut JobDraft::defaults(), "rwmixread", "101"), Err("allowed 0..=100".into()));
    }

    #[test]
    fn direct_buffered_and_sync_options() {
        assert!(job(&[("direct", "1"), ("buffered", "0")]).spec.direct);
        assert!(!job(&[("buffered", "1")]).spec.direct);
        assert!(!job(&[("direct", "0")]).spec.direct);
        let d = job(&[("fsync", "32"), ("fdatasync", "8"), ("fsync_on_close", "1"), ("invalidate", "0")]);
        assert_eq!((d.spec.fsync_blocks, d.spec.fdatasync_blocks, d.spec.end_fsync), (32, 8, true));
        assert!(!d.spec.invalidate && JobDraft::defaults().spec.invalidate, "fio invalidates by default");
        for (v, sync) in [("none", false), ("0", false), ("1", true), ("sync", true), ("dsync", true)] {
            assert_eq!(job(&[("sync", v)]).spec.sync_writes, sync, "sync={v}");
        }
        assert_eq!(apply(&mut JobDraft::defaults(), "sync", "always"), Err("allowed none, 0, sync, 1, dsync".into()));
        let ba = job(&[("ba", "64k,1m")]).spec;
        assert_eq!((ba.blockalign, ba.norandommap), ([Some(65536), Some(1 << 20), Some(1 << 20)], true));
    }

    // ---- block sizes ----

    #[test]
    fn per_direction_block_sizes() {
        let d = job(&[("bs", "8k,32k")]);
        assert_eq!(d.bs_bytes, [8192, 32768, 32768]);
        let d = job(&[("bs", "16k"), ("bs", ",8k,")]);
        assert_eq!(d.bs_bytes, [16384, 8192, 16384]);
        let d = job(&[("blocksize", "(2*4096)")]);
        assert_eq!(d.bs_bytes, [8192; 3]);
        let mut d = JobDraft::defaults();
        assert_eq!(apply(&mut d, "bs", "0"), Err("allowed 1 byte to 256 MiB".into()));
        assert_eq!(apply(&mut d, "bs", "512m"), Err("allowed 1 byte to 256 MiB".into()));
        assert!(apply(&mut d, "bs", "256m").is_ok());
        assert_eq!(
            apply(&mut d, "bs", "1k-4k"),
            Err("a range of block sizes needs bsrange=, e.g. bsrange=1k-4k".into())
        );
    }

    #[test]
    fn bsrange_and_bssplit_per_direction() {
        let d = job(&[("bsrange", "1k-4k,2k:8k")]);
        assert_eq!(d.bs_range, [Some((1024, 4096)), Some((2048, 8192)), Some((2048, 8192))]);
        let d = job(&[("bssplit", "2k/50:4k/50,4k/90:8k/10")]);
        assert_eq!(d.bs_split[0], Some(vec![(2048, 50.0), (4096, 50.0)]));
        assert_eq!(d.bs_split[1], Some(vec![(8192, 10.0), (4096, 90.0)]));
        assert_eq!(d.bs_split[2], d.bs_split[1]);
        let spec = job(&[("bssplit", "4k/10:64k/90"), ("bs", "8k")]).finish().unwrap();
        assert_eq!(spec.bs[0], BlockSize::Split(vec![(4096, 10.0), (65536, 90.0)]));
    }

    // ---- sizes and kb_base ----

    #[test]
    fn sizes_percentages_and_zero() {
        let d = job(&[("size", "20%"), ("offset", "10%"), ("offset_increment", "1g"), ("io_size", "5g")]);
        assert_eq!(d.spec.size, Some(SizeSpec::Percent(20.0)));
        assert_eq!(d.spec.offset, SizeSpec::Percent(10.0));
        assert_eq!(d.spec.offset_increment, SizeSpec::Bytes(1 << 30));
        assert_eq!(d.spec.io_size, Some(SizeSpec::Bytes(5 << 30)));
        assert_eq!(job(&[("size", "8m"), ("size", "0")]).spec.size, None);
        assert_eq!(apply(&mut JobDraft::defaults(), "size", "0%"), Err("allowed a size or 1%..100%".into()));
    }

    #[test]
    fn kb_base_applies_to_later_values() {
        let d = job(&[("bs", "4k"), ("kb_base", "1000"), ("size", "1m")]);
        assert_eq!(d.bs_bytes, [4096; 3]);
        assert_eq!(d.spec.size, Some(SizeSpec::Bytes(1_000_000)));
        assert_eq!(apply(&mut JobDraft::defaults(), "kb_base", "1"), Err("allowed 1000 or 1024".into()));
    }

    // ---- time ----

    #[test]
    fn time_units_per_option() {
        let d = job(&[("runtime", "2m"), ("ramp_time", "1"), ("startdelay", "500ms"), ("thinktime", "20")]);
        assert_eq!(d.spec.runtime_ns, Some(120_000_000_000));
        assert_eq!(d.spec.ramp_time_ns, 1_000_000_000);
        assert_eq!(d.spec.startdelay_ns, 500_000_000);
        assert_eq!(d.spec.thinktime_ns, 20_000);
        assert_eq!(job(&[("timeout", "0")]).spec.runtime_ns, None);
        assert_eq!(
            apply(&mut JobDraft::defaults(), "startdelay", "1-3"),
            Err("random start delays (ranges) are not supported by ssdtwin; give one time".into())
        );
    }

    // ---- queueing ----

    #[test]
    fn depth_jobs_rates() {
        let d = job(&[("iodepth", "32"), ("numjobs", "4"), ("rate_iops", "100,200"), ("number_ios", "1k")]);
        assert_eq!((d.spec.iodepth, d.spec.numjobs), (32, 4));
        assert_eq!(d.spec.rate_iops, [Some(100), Some(200), Some(200)]);
        assert_eq!(d.spec.number_ios, Some(1024));
        assert_eq!(apply(&mut JobDraft::defaults(), "iodepth", "0"), Err("allowed 1..=65536".into()));
        assert_eq!(apply(&mut JobDraft::defaults(), "numjobs", "65537"), Err("allowed 1..=65536".into()));
        assert_eq!(apply(&mut JobDraft::defaults(), "loops", "0"), Err("allowed 1..=4294967295".into()));
    }

    #[test]
    fn engine_loop_options_reach_the_job() {
        let d = job(&[
            ("iodepth_batch", "8"),
            ("iodepth_batch_complete", "4"),
            ("iodepth_batch_complete_max", "16"),
            ("iodepth_low", "2"),
            ("hipri", "1"),
            ("fixedbufs", "1"),
            ("sqthread_poll", "1"),
            ("io_submit_mode", "inline"),
        ]);
        let s = &d.spec;
        assert_eq!((s.iodepth_batch_submit, s.iodepth_batch_complete_min, s.iodepth_batch_complete_max), (8, 4, 16));
        assert_eq!(s.iodepth_low, 2);
        assert!(s.hipri && s.fixedbufs && s.sqthread_poll && !s.registerfiles);
        assert!(job(&[("io_submit_mode", "offload")]).spec.io_submit_offload);
        assert_eq!(apply(&mut JobDraft::defaults(), "io_submit_mode", "x"), Err("allowed inline, offload".into()));
    }

    #[test]
    fn names_aliases_and_priorities_are_fio_s() {
        // fio 3.33's options.c: (name, alias) of every aliased option ssdtwin reads; fio
        // echoes the name in "job options" and --showcmd whichever was written.
        for (name, alias) in [
            ("rw", "readwrite"),
            ("iodepth_batch", "iodepth_batch_submit"),
            ("iodepth_batch_complete_min", "iodepth_batch_complete"),
            ("io_size", "io_limit"),
            ("offset", "fileoffset"),
            ("bs", "blocksize"),
            ("ba", "blockalign"),
            ("bsrange", "blocksize_range"),
            ("nrfiles", "nr_files"),
            ("runtime", "timeout"),
            ("stonewall", "wait_for_previous"),
            ("disable_bw_measurement", "disable_bw"),
            ("steadystate", "ss"),
            ("steadystate_duration", "ss_dur"),
            ("steadystate_ramp_time", "ss_ramp"),
        ] {
            assert_eq!(lookup(alias).map(|d| d.name), Some(name), "{alias}");
            assert_eq!(lookup(name).map(|d| d.name), Some(name), "{name}");
        }
        // fio's .prio: the options it parses before (1) or after (-1) the rest of a section.
        for (name, priority) in
            [("filename", -1), ("filename_format", -1), ("lockfile", 1), ("cpus_allowed_policy", 1), ("kb_base", 1)]
        {
            assert_eq!(lookup(name).map(|d| d.priority), Some(priority), "{name}");
        }
    }

    #[test]
    fn cpus_rates_and_thinktime_variants() {
        let d = job(&[("cpus_allowed", "0,2-3"), ("cpus_allowed_policy", "split")]);
        assert_eq!(d.spec.cpus_allowed, Some(vec![0, 2, 3]));
        assert!(d.spec.cpus_split);
        assert_eq!(job(&[("cpumask", "34")]).spec.cpus_allowed, Some(vec![1, 5]));
        let d = job(&[("rate", "1m,500k"), ("rate_process", "poisson")]);
        assert_eq!(d.spec.rate_bytes, [Some(1 << 20), Some(500 << 10), Some(500 << 10)]);
        assert!(d.spec.rate_poisson);
        let d = job(&[
            ("thinktime", "100"),
            ("thinktime_spin", "20"),
            ("thinktime_blocks", "8"),
            ("thinktime_blocks_type", "issue"),
            ("thinktime_iotime", "9"),
        ]);
        let s = &d.spec;
        assert_eq!((s.thinktime_ns, s.thinktime_spin_ns, s.thinktime_blocks), (100_000, 20_000, 8));
        assert!(s.thinktime_blocks_issue);
        assert_eq!(s.thinktime_iotime_ns, 9_000_000_000);
        let bad = apply(&mut JobDraft::defaults(), "cpus_allowed_policy", "spread").unwrap_err();
        assert_eq!(bad, "allowed shared, split");
    }

    #[test]
    fn steadystate_criteria_parse_as_fio_reads_them() {
        let ss = job(&[("ss", "iops:10%"), ("ss_dur", "30s"), ("ss_ramp", "10")]).spec.steadystate;
        assert_eq!((ss.bandwidth, ss.slope, ss.limit, ss.percent), (false, false, 10.0, true));
        assert_eq!((ss.dur_ns, ss.ramp_ns, ss.samples()), (30_000_000_000, 10_000_000_000, 30));
        assert_eq!(ss.label(), "iops:10.000000%");
        let ss = job(&[("steadystate", "bw_slope:2m")]).spec.steadystate;
        assert_eq!((ss.bandwidth, ss.slope, ss.limit, ss.percent), (true, true, 2_097_152.0, false));
        assert_eq!(JobDraft::defaults().spec.steadystate.label(), "iops_slope:0.010000%");
        assert_eq!(
            apply(&mut JobDraft::defaults(), "ss", "lat:1%"),
            Err("allowed iops, iops_slope, bw or bw_slope with a limit, e.g. iops_slope:0.1% or bw:10m".into())
        );
        assert!(apply(&mut JobDraft::defaults(), "ss", "iops").unwrap_err().starts_with("a threshold must follow"));
    }

    #[test]
    fn options_with_no_effect_still_check_their_values() {
        let d = job(&[("thread", "1"), ("gtod_reduce", "1"), ("clocksource", "cpu"), ("random_generator", "lfsr")]);
        assert_eq!(d.spec, JobDraft::defaults().spec);
        assert_eq!(
            apply(&mut JobDraft::defaults(), "clocksource", "tsc"),
            Err("allowed gettimeofday, clock_gettime, cpu".into())
        );
        assert!(apply(&mut JobDraft::defaults(), "disable_lat", "yes").unwrap_err().contains("0 or 1"));
    }

    // ---- distributions ----

    #[test]
    fn random_distributions() {
        let d = job(&[("random_distribution", "zipf:1.2")]);
        assert_eq!(d.spec.random_distribution[1], Distribution::Zipf { theta: 1.2, center: None });
        let d = job(&[("random_distribution", "zipf:1.2:0.25")]);
        assert_eq!(d.spec.random_distribution[0], Distribution::Zipf { theta: 1.2, center: Some(0.25) });
        let d = job(&[("random_distribution", "pareto")]);
        assert_eq!(d.spec.random_distribution[2], Distribution::Pareto { h: 0.2, center: None });
        let d = job(&[("random_distribution", "normal:10")]);
        assert_eq!(d.spec.random_distribution[0], Distribution::Normal { sigma_pct: 10.0, center: 0.5 });
        let d = job(&[("random_distribution", "zipf"), ("random_distribution", "random")]);
        assert_eq!(d.spec.random_distribution[0], Distribution::Random);
    }

    #[test]
    fn zoned_distribution_per_direction() {
        let d = job(&[("random_distribution", "zoned:60/10:30/20:8/30:2/40,100/100")]);
        let Distribution::Zoned(read) = &d.spec.random_distribution[0] else { panic!("read is zoned") };
        assert_eq!(read.len(), 4);
        assert_eq!(read[1], Zone { access_pct: 30.0, size: ZoneSize::Percent(20.0) });
        let write = vec![Zone { access_pct: 100.0, size: ZoneSize::Percent(100.0) }];
        assert_eq!(d.spec.random_distribution[1], Distribution::Zoned(write.clone()));
        assert_eq!(d.spec.random_distribution[2], Distribution::Zoned(write));
        let d = job(&[("random_distribution", "zoned_abs:60/20g:40/100g")]);
        let Distribution::Zoned(abs) = &d.spec.random_distribution[2] else { panic!("trim is zoned") };
        assert_eq!(abs[1], Zone { access_pct: 40.0, size: ZoneSize::Bytes(100 << 30) });
    }

    #[test]
    fn bad_distributions() {
        let mut d = JobDraft::defaults();
        let mut bad = |v: &str| apply(&mut d, "random_distribution", v).unwrap_err();
        assert_eq!(bad("zipf:1"), "zipf theta must be > 0 and not 1");
        assert_eq!(bad("pareto:1.5"), "pareto h must be in (0, 1)");
        assert_eq!(bad("normal:100"), "normal deviation must be in [0, 100)");
        assert_eq!(bad("normal:10:1.5"), "the center must be in [0, 1]");
        assert_eq!(bad("zipf:1.2,zipf:0.8"), "per-direction lists (',') work only with zoned and zoned_abs");
        assert_eq!(bad("gauss:3"), DISTRIBUTIONS);
        assert_eq!(bad("random:1"), DISTRIBUTIONS);
        assert_eq!(bad("zoned"), "zoned needs zones, e.g. zoned:60/10:40/90");
    }

    // ---- reporting ----

    #[test]
    fn percentile_switches() {
        let spec = job(&[("lat_percentiles", "1"), ("clat_percentiles", "0"), ("slat_percentiles", "1")]).spec;
        assert_eq!(spec.percentiles_of, crate::workload::PercentilesOf { slat: true, clat: false, lat: true });
        assert_eq!(
            crate::workload::JobSpec::new("d").percentiles_of,
            crate::workload::PercentilesOf { slat: false, clat: true, lat: false }
        );
    }

    #[test]
    fn percentile_lists() {
        assert_eq!(job(&[("percentile_list", "99.9:50:99")]).spec.percentile_list, vec![50.0, 99.0, 99.9]);
        let mut d = JobDraft::defaults();
        assert_eq!(
            apply(&mut d, "percentile_list", "0:50"),
            Err("'0' is not a percentile; each must be in (0, 100], e.g. 99.9".into())
        );
        let many = (1..=21).map(|p| p.to_string()).collect::<Vec<_>>().join(":");
        assert_eq!(apply(&mut d, "percentile_list", &many), Err("at most 20 percentiles".into()));
    }

    // ---- hints ----

    #[test]
    fn hints_for_unsupported_options() {
        assert_eq!(
            unsupported_hint("write_barrier", false),
            "; barrier writes and sync_file_range are not modelled; use fsync=, fdatasync= or sync=1"
        );
        assert_eq!(unsupported_hint("bs_range", false), "; did you mean 'bsrange'?");
        assert_eq!(unsupported_hint("iodepht", false), "; did you mean 'iodepth'?");
        assert_eq!(
            unsupported_hint("output-format", true),
            "; it is a fio program option, not a job option: give it to the ssdtwin fio command"
        );
        assert!(unsupported_hint("zonecapacity", false).contains("comes from the drive"));
        assert_eq!(unsupported_hint("no_such_option_at_all", false), "");
    }
}
