//! Host profiles: a machine and its operating system, as a TOML file
//! (`profiles/hosts/NAME.toml`), checked into a [`HostConfig`].
//!
//! A host profile gives the CPU (cores, a speed factor, DRAM), the kernel's per-operation
//! CPU costs (system call, interrupt, wakeup, block-layer submit and complete), the cost of
//! each I/O engine the OS offers, file-system costs, and kernel policies (HMB cap, readahead,
//! dirty-page thresholds). Costs are written for a reference core (`speed_factor = 1.0`, see
//! `docs/profiles.md`) and divided by the profile's speed factor when built, so one
//! `--set cpu.speed_factor=…` moves every cost together. Every value carries its source in
//! the shipped files' comments. The `none` profile has no costs at all: the bare twin.
//!
//! `file` is the file as written and `host` the validated [`HostConfig`] with its
//! [`OsFamily`]; `build_host` checks the top-level sections and hands the rest to one file
//! each: `costs` (engines, file systems, drivers), `memory` (`[vm]`, `[memory]`),
//! `page_cache` and `apst`. Reading the file and `--set` overrides are
//! [`crate::profile_file`]'s.

mod apst;
mod costs;
mod file;
mod host;
mod memory;
mod page_cache;

pub use file::*;
pub use host::*;

use crate::engine::SimDuration;
use crate::profile_file::{self, Checker, LoadedProfile, ProfileError, apply_overrides, parse_error};
use apst::build_apst;
use costs::{build_engines, build_file_systems};
use memory::build_memory_parts;
use page_cache::build_page_cache;

/// Host profiles shipped with ssdtwin, embedded at build time from `profiles/hosts/`.
pub const SHIPPED_HOSTS: &[(&str, &str)] = &[
    ("none", include_str!("../../../../../profiles/hosts/none.toml")),
    ("linux-4.15", include_str!("../../../../../profiles/hosts/linux-4.15.toml")),
    ("linux-6.1", include_str!("../../../../../profiles/hosts/linux-6.1.toml")),
    ("freebsd-11", include_str!("../../../../../profiles/hosts/freebsd-11.toml")),
    ("windows-10", include_str!("../../../../../profiles/hosts/windows-10.toml")),
    ("linux-3.6", include_str!("../../../../../profiles/hosts/linux-3.6.toml")),
    ("linux-3.6-fastswap", include_str!("../../../../../profiles/hosts/linux-3.6-fastswap.toml")),
];

/// Names of the shipped host profiles.
pub fn shipped_host_names() -> Vec<&'static str> {
    profile_file::shipped::names(SHIPPED_HOSTS)
}

/// Loads and checks a shipped host profile by name, or a TOML file by path, after
/// `section.field=value` overrides.
pub fn load_host(name_or_path: &str, overrides: &[String]) -> Result<HostConfig, ProfileError> {
    let not_found =
        || ProfileError::HostNotFound { name: name_or_path.to_string(), available: shipped_host_names().join(", ") };
    let mut loaded = profile_file::load_from(name_or_path, SHIPPED_HOSTS, "hosts/", not_found)?;
    apply_overrides(&mut loaded, overrides)?;
    build_host(&loaded)
}

/// `--host-set` overrides that make every I/O call and wakeup of a host cost the same and
/// every sleep end on time (`[kernel] call_cv`, `call_preempt_chance`, `wakeup_cv`,
/// `preempt_chance`, `timer_slack_us` and `timer_tick_us` zero): the ideal host, for checking a path's
/// arithmetic.
pub fn ideal_host_overrides() -> Vec<String> {
    [
        "kernel.call_cv=0",
        "kernel.call_preempt_chance=0",
        "kernel.wakeup_cv=0",
        "kernel.preempt_chance=0",
        "kernel.timer_slack_us=0",
        "kernel.timer_tick_us=0",
    ]
    .map(String::from)
    .into()
}

/// `[kernel] call_cv`, `call_preempt_chance`, `wakeup_cv`, `preempt_chance` and
/// `preempt_us`; the wait scales with the CPU's speed as the costs do.
fn build_cpu_jitter(c: &Checker<'_>, k: &file::KernelSection, speed: f64) -> Result<CpuJitter, ProfileError> {
    let call_cv = c.range("kernel.call_cv", k.call_cv, 0.0, 2.0)?;
    let call_preempt_chance = c.range("kernel.call_preempt_chance", k.call_preempt_chance, 0.0, 0.5)?;
    let wakeup_cv = c.range("kernel.wakeup_cv", k.wakeup_cv, 0.0, 2.0)?;
    let preempt_chance = c.range("kernel.preempt_chance", k.preempt_chance, 0.0, 0.5)?;
    let preempt_us = c.range("kernel.preempt_us", k.preempt_us, 0.0, 100_000.0)?;
    Ok(CpuJitter {
        call_cv,
        call_preempt_chance,
        wakeup_cv,
        preempt_chance,
        preempt_mean: SimDuration((preempt_us * 1e3 / speed).round() as u64),
    })
}

/// `[kernel] nvme_int_coalesce_time_us` and `nvme_int_coalesce_thr`, as Feature 08h takes
/// them: TIME in 100 µs units up to 255, THR the entries less one; either 0 is off.
fn build_int_coalescing(c: &Checker<'_>, k: &file::KernelSection) -> Result<Option<IntCoalescing>, ProfileError> {
    let time_us = c.range("kernel.nvme_int_coalesce_time_us", k.nvme_int_coalesce_time_us, 0, 25_500)?;
    if time_us % 100 != 0 {
        return Err(c.bad(
            "kernel.nvme_int_coalesce_time_us",
            &time_us,
            "allowed multiples of 100 (the feature's unit)",
        ));
    }
    let thr = c.range("kernel.nvme_int_coalesce_thr", k.nvme_int_coalesce_thr, 0, 255)?;
    Ok((time_us > 0 && thr > 0)
        .then(|| IntCoalescing { time: SimDuration::from_us(u64::from(time_us)), threshold: thr + 1 }))
}

/// `[kernel] timer_slack_us` and `timer_tick_us`: the kernel's timers, not the CPU's speed.
fn build_sleep_timer(c: &Checker<'_>, k: &file::KernelSection) -> Result<SleepTimer, ProfileError> {
    let slack_us = c.range("kernel.timer_slack_us", k.timer_slack_us, 0.0, 1_000_000.0)?;
    let tick_us = c.range("kernel.timer_tick_us", k.timer_tick_us, 0.0, 1_000_000.0)?;
    Ok(SleepTimer {
        slack: SimDuration((slack_us * 1e3).round() as u64),
        tick: SimDuration((tick_us * 1e3).round() as u64),
    })
}

/// Checks a loaded host profile.
pub fn build_host(loaded: &LoadedProfile) -> Result<HostConfig, ProfileError> {
    let file = loaded.source.as_str();
    let p: HostProfile = toml::Value::Table(loaded.table.clone())
        .try_into()
        .map_err(|e: toml::de::Error| parse_error(file, &e.to_string()))?;
    let c = Checker { file };
    let os = c.choice("host.os", &p.host.os, &OsFamily::NAMES)?;
    let cores = c.range("cpu.cores", p.cpu.cores, 1, 4096)?;
    let numa_nodes = c.range("cpu.numa_nodes", p.cpu.numa_nodes, 1, cores)?;
    let speed = p.cpu.speed_factor;
    if !speed.is_finite() || !(0.01..=100.0).contains(&speed) {
        return Err(c.bad("cpu.speed_factor", &speed, "allowed 0.01 to 100"));
    }
    let dram = p.cpu.dram_gib;
    if !dram.is_finite() || !(0.0..=65536.0).contains(&dram) {
        return Err(c.bad("cpu.dram_gib", &dram, "allowed 0 to 65536 GiB"));
    }
    let cost = |field: &str, ns: u64| -> Result<SimDuration, ProfileError> {
        c.range(field, ns, 0, 1_000_000_000)?;
        Ok(SimDuration((ns as f64 / speed).round() as u64))
    };
    let engines = build_engines(&c, &p.engines, &cost)?;
    let file_systems = build_file_systems(&p.fs, &cost)?;
    if let Some(fs) = &p.host.default_fs {
        if !p.fs.contains_key(fs) {
            let names: Vec<&str> = p.fs.keys().map(String::as_str).collect();
            return Err(c.bad(
                "host.default_fs",
                &format!("\"{fs}\""),
                &format!("one of the [fs] tables: {}", names.join(", ")),
            ));
        }
    }
    if os == OsFamily::Bare && (!engines.is_empty() || !file_systems.is_empty()) {
        return Err(c.bad("host.os", &"\"none\"", "a host with os = \"none\" has no [engines] or [fs]"));
    }
    let max_sectors_kb = c.range("block.max_sectors_kb", p.block.max_sectors_kb, 4, 1 << 22)?;
    let page_cache = p.page_cache.as_ref().map(|pc| build_page_cache(&c, pc, &cost, dram)).transpose()?;
    let (vm, memory, drivers) = build_memory_parts(&c, &p, &cost, dram, max_sectors_kb * 1024)?;
    Ok(HostConfig {
        name: loaded.name.clone(),
        source: loaded.source.clone(),
        profile_toml: loaded.to_toml(),
        description: p.host.description.clone(),
        os,
        cores,
        speed_factor: speed,
        numa_nodes,
        dram_bytes: (dram * (1u64 << 30) as f64) as u64,
        syscall: cost("kernel.syscall_ns", p.kernel.syscall_ns)?,
        irq: cost("kernel.irq_ns", p.kernel.irq_ns)?,
        wakeup: cost("kernel.wakeup_ns", p.kernel.wakeup_ns)?,
        cpu_jitter: build_cpu_jitter(&c, &p.kernel, speed)?,
        sleep_timer: build_sleep_timer(&c, &p.kernel)?,
        nvme_hmb_cap_bytes: p.kernel.nvme_hmb_cap_mib.map(|m| u64::from(m) << 20),
        nvme_apst: build_apst(&c, &p.kernel)?,
        nvme_int_coalescing: build_int_coalescing(&c, &p.kernel)?,
        block_submit: cost("block.submit_ns", p.block.submit_ns)?,
        block_complete: cost("block.complete_ns", p.block.complete_ns)?,
        max_request_bytes: max_sectors_kb * 1024,
        fio_prep: cost("fio.prep_ns", p.fio.prep_ns)?,
        fio_complete: cost("fio.complete_ns", p.fio.complete_ns)?,
        engines,
        file_systems,
        default_fs: p.host.default_fs.clone(),
        page_cache,
        vm,
        memory,
        // Set by the host for a target whose driver has a per-unit cost.
        block_unit: SimDuration::ZERO,
        drivers,
    })
}
