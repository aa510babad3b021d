//! The job set checked against the host and its target before anything runs: block
//! sizes and offsets against the LBA size, regions against the namespace, CPUs and NUMA
//! nodes against the host, options against their engines; and fio's rules across jobs
//! (reporting groups, their shared steady-state criterion).

use super::super::files::{self};
use super::super::{Direction, JobError, JobSet, JobSpec, SizeSpec};
use crate::block::BlockDevice;
use crate::os::Host;

/// Group id of every job: a new group at each `stonewall` or `new_group` after the first.
pub(super) fn group_ids(set: &JobSet) -> Vec<u32> {
    let mut g = 0;
    set.jobs
        .iter()
        .enumerate()
        .map(|(i, j)| {
            if i > 0 && (j.stonewall || j.new_group) {
                g += 1;
            }
            g
        })
        .collect()
}

/// Checks every job against the target before anything runs.
// One check after another, each with its own message.
pub(super) fn validate<D: BlockDevice>(host: &Host<D>, set: &JobSet) -> Result<(), JobError> {
    let (cores, host_name) = (host.config().cores, &host.config().name);
    if set.jobs.is_empty() {
        return Err(JobError::NoJobs { place: "job set".into() });
    }
    let geometry = host.geometry();
    let lba = geometry.lba_bytes;
    let ns_bytes = geometry.capacity_bytes();
    for job in &set.jobs {
        for dir in Direction::ALL.into_iter().filter(|&d| job.rw.uses(d)) {
            let bs = &job.bs[dir.index()];
            for b in [bs.min(), bs.max()] {
                if b == 0 || b % lba != 0 {
                    return Err(invalid(
                        job,
                        format!(
                            "{} block size {b} is not a multiple of the {lba}-byte LBA size of the current format",
                            dir.name()
                        ),
                    ));
                }
            }
        }
        if let Some(a) = job.blockalign.iter().flatten().find(|&&a| a % lba != 0) {
            return Err(invalid(job, format!("blockalign={a} is not a multiple of the {lba}-byte LBA size")));
        }
        if job.time_based && job.runtime_ns.is_none() {
            return Err(invalid(job, "time_based needs a runtime".into()));
        }
        if let Some(cpu) = job.cpus_allowed.iter().flatten().find(|&&c| c >= cores) {
            return Err(invalid(
                job,
                format!("cpus_allowed names CPU {cpu}; host {host_name} has CPUs 0 to {}", cores - 1),
            ));
        }
        if let Some(r) = &job.replay {
            // The traces were read when the job was parsed; now their offsets meet the drive.
            for path in &r.paths {
                super::super::trace::TraceReader::scan(path, r.options, ns_bytes, lba).map_err(|p| invalid(job, p))?;
            }
        }
        check_zoned(job, &geometry)?;
        if let Some(p) = &job.placement {
            let handles = geometry.placement_handles;
            if handles == 0 {
                return Err(invalid(
                    job,
                    "fdp fetch ruhs failed: the drive has no Flexible Data Placement (its profile has no [fdp] section)"
                        .into(),
                ));
            }
            if let Some(&index) = p.indices.iter().flatten().find(|&&i| i >= handles) {
                return Err(invalid(
                    job,
                    format!(
                        "plids: PID index {index} must be smaller than {handles} (the drive's reclaim unit handles)"
                    ),
                ));
            }
        }
        let cmd = &job.priority.cmd_options;
        if let Some(option) = cmd.first()
            && !super::super::fio_engine(&job.ioengine).is_some_and(|e| e.cmdprio)
        {
            return Err(invalid(
                job,
                format!("{option} is an option of the libaio and io_uring engines, not of ioengine={}", job.ioengine),
            ));
        }
        if cmd.contains(&"cmdprio_percentage") && cmd.contains(&"cmdprio_bssplit") {
            return Err(invalid(job, "cmdprio_percentage and cmdprio_bssplit are mutually exclusive".into()));
        }
        let nodes = host.config().numa_nodes;
        let named = job.numa_cpu_nodes.iter().flatten().chain(&job.numa_mem_nodes);
        if let Some(node) = named.copied().find(|&n| n >= nodes) {
            return Err(invalid(
                job,
                match nodes {
                    1 => format!(
                        "NUMA node {node} does not exist: host {host_name} has one node, 0 (a host with more: --host-set cpu.numa_nodes=N)"
                    ),
                    _ => format!("NUMA node {node} does not exist: host {host_name} has nodes 0 to {}", nodes - 1),
                },
            ));
        }
        if files::on_files(job) {
            check_file_offsets(job, lba)?;
        } else {
            check_region(job, ns_bytes, lba)?;
        }
    }
    Ok(())
}

/// fio's rule (`td_steadystate_init`): the jobs of one reporting group share one
/// steady-state criterion.
pub(super) fn check_steady_state_groups(set: &JobSet, groupids: &[u32]) -> Result<(), JobError> {
    for (j, job) in set.jobs.iter().enumerate() {
        let first = groupids.iter().position(|&g| g == groupids[j]).expect("its own group");
        if job.steadystate != set.jobs[first].steadystate {
            return Err(JobError::Invalid {
                job: job.name.clone(),
                problem: format!(
                    "steadystate options must be the same for every job of a reporting group (job '{}' has others)",
                    set.jobs[first].name
                ),
            });
        }
    }
    Ok(())
}

fn invalid(job: &JobSpec, problem: String) -> JobError {
    JobError::Invalid { job: job.name.clone(), problem }
}

/// A job on files: its offsets are in the files, whose sizes are known when they are opened.
fn check_file_offsets(job: &JobSpec, lba: u64) -> Result<(), JobError> {
    // Offsets are in the files, whose sizes are known when they are opened; files
    // start on LBA boundaries, so a direct job's byte offsets must be LBA multiples
    // (fio's direct read at offset 1000 fails with EINVAL). Through the page cache any
    // offset is fine.
    let misaligned = [job.offset, job.offset_increment].into_iter().find_map(|o| match o {
        SizeSpec::Bytes(b) if b % lba != 0 => Some(b),
        _ => None,
    });
    if let (Some(b), true) = (misaligned, job.direct) {
        return Err(invalid(
            job,
            format!(
                "offset {b} is not a multiple of the {lba}-byte LBA size, which direct I/O needs (direct=0 allows it)"
            ),
        ));
    }
    Ok(())
}

/// A job on the device: each clone's region must lie within the namespace, on LBA
/// boundaries, and hold a block.
fn check_region(job: &JobSpec, ns_bytes: u64, lba: u64) -> Result<(), JobError> {
    let offset = job.offset.resolve(ns_bytes);
    let inc = job.offset_increment.resolve(ns_bytes);
    if offset % lba != 0 || inc % lba != 0 {
        return Err(invalid(
            job,
            format!("offset {offset} and offset_increment {inc} must be multiples of the {lba}-byte LBA size"),
        ));
    }
    let last_start = offset + inc * u64::from(job.numjobs - 1);
    if last_start >= ns_bytes {
        return Err(invalid(
            job,
            format!(
                "clone {} would start at byte {last_start}, beyond the namespace ({ns_bytes} bytes)",
                job.numjobs - 1
            ),
        ));
    }
    // Without size=, each clone's region runs to the end (the last clone's is smallest).
    let region = job.size.map_or(ns_bytes - last_start, |s| s.resolve(ns_bytes));
    if last_start + region > ns_bytes {
        return Err(invalid(
            job,
            format!(
                "region of clone {} ends at byte {}, beyond the namespace ({ns_bytes} bytes); reduce size or offset",
                job.numjobs - 1,
                last_start + region
            ),
        ));
    }
    let max_bs =
        Direction::ALL.iter().filter(|&&d| job.rw.uses(d)).map(|d| job.bs[d.index()].max()).max().unwrap_or(4096);
    if region < max_bs {
        return Err(invalid(job, format!("region of {region} bytes is smaller than the block size {max_bs}")));
    }
    Ok(())
}

/// A job on a zoned drive, or under `zonemode=zbd`: fio's zbd rules, and the twin's (every
/// job on a zoned drive follows its write pointers).
fn check_zoned(job: &JobSpec, geometry: &crate::block::BlockGeometry) -> Result<(), JobError> {
    let lba = geometry.lba_bytes;
    if geometry.zones.is_some() && job.zbd.is_none() {
        return Err(invalid(
            job,
            "the drive is zoned: writes go only at its zones' write pointers and no command crosses a zone, \
             which fio keeps to under zonemode=zbd; give zonemode=zbd"
                .into(),
        ));
    }
    if job.zbd.is_some() && super::super::files::on_files(job) {
        return Err(invalid(job, "zonemode=zbd addresses the zoned drive itself, not files on a file system".into()));
    }
    if job.zbd.is_some() {
        if job.rw.uses(Direction::Write) && !job.direct {
            return Err(invalid(job, "Using direct I/O is mandatory for writing to ZBD drives".into()));
        }
        if let Some(zones) = geometry.zones
            && job.rw.uses(Direction::Trim)
        {
            let size = zones.size_lbas * lba;
            let bs = &job.bs[Direction::Trim.index()];
            if bs.min() != size || bs.max() != size {
                return Err(invalid(job, format!("trim block size {} is not the zone size {size}", bs.min())));
            }
        }
    }
    Ok(())
}
