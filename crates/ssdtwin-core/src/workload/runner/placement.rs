//! Where each clone runs and what it works on: its region of the device or its files
//! (laid out through the host before its phase starts), and its core.

use super::super::files::{self, FileTable, Layout, PlacedFile};
use super::super::{JobError, JobSpec};
use super::RunError;
use crate::block::BlockDevice;
use crate::os::{CoreId, Host, HostConfig, UnmeasuredError};

/// The files clone `k` of `spec` works on (opened in `table`, with what to lay out added to
/// `layout`), or its region of the device.
pub(super) fn place_clone(
    spec: &JobSpec,
    k: u32,
    ns_bytes: u64,
    table: &mut FileTable,
    layout: &mut Vec<Layout>,
) -> Result<Vec<PlacedFile>, JobError> {
    if files::on_files(spec) {
        let (placed, new) =
            table.open(spec, k).map_err(|problem| JobError::Invalid { job: spec.name.clone(), problem })?;
        layout.extend(new);
        return Ok(placed);
    }
    // On the device the whole namespace is the file: readahead may run past the region.
    let start = spec.offset.resolve(ns_bytes) + spec.offset_increment.resolve(ns_bytes) * u64::from(k);
    // Without size=, fio's region runs from each clone's own start to the device's end.
    let bytes = spec.size.map_or(ns_bytes - start, |size| size.resolve(ns_bytes));
    Ok(vec![PlacedFile { extent: (0, ns_bytes), region: (start, start + bytes) }])
}

/// Lays out `ranges` through the host before a phase ([`Host::lay_out`]): simulated time
/// passes; nothing is measured. With `flush`, a flush follows (fio's `create_fsync`).
pub(super) fn lay_out<D: BlockDevice>(host: &mut Host<D>, ranges: &[Layout], flush: bool) -> Result<(), RunError> {
    host.lay_out(ranges, flush).map_err(|e| match e {
        UnmeasuredError::Stalled { time_ns, in_flight } => RunError::Stalled { time_ns, in_flight },
        e => RunError::Job(JobError::Invalid { job: "file layout".into(), problem: e.to_string() }),
    })
}

/// The core clone `k` of `spec` runs on: with `cpus_allowed_policy=split` the k-th CPU of
/// its set; otherwise the threads spread over the set in start order, as the scheduler
/// balances runnable threads over idle CPUs.
pub(super) fn pick_core(spec: &JobSpec, k: u32, thread_number: u32, host: &HostConfig) -> CoreId {
    let all: Vec<u32>;
    let allowed = match (&spec.numa_cpu_nodes, &spec.cpus_allowed) {
        (Some(nodes), _) if !nodes.is_empty() => {
            all = nodes.iter().flat_map(|&n| host.node_cores(n)).collect();
            all.as_slice()
        }
        (None, Some(set)) if !set.is_empty() => set.as_slice(),
        _ => {
            all = (0..host.cores).collect();
            all.as_slice()
        }
    };
    let index = if spec.cpus_split { k } else { thread_number - 1 };
    CoreId(allowed[index as usize % allowed.len()])
}
