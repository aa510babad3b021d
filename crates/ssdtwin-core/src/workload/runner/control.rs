//! The fio job-control features a clone may use (verification, latency limits, flows,
//! command priorities), kept together behind one pointer: a clone that uses none of them,
//! the common case, pays one check per I/O for all of them.

use super::flow::Member;
use super::latency::LatencyControl;
use super::priority::PrioritySelector;
use super::replay::ReplayCursor;
use super::verify::Verify;
use crate::engine::SimTime;
use crate::os::HostConfig;
use crate::workload::trace::IologWriter;
use crate::workload::{FlowSpec, JobSpec};

/// A clone's job-control state.
pub(super) struct Control {
    /// `verify=`: what the clone reads back and checks.
    pub verify: Option<Verify>,
    /// `max_latency`, `latency_target`.
    pub latency: Option<LatencyControl>,
    /// `flow=`: the flow the clone joins when it starts, and its place in it once it has.
    pub flow_spec: Option<FlowSpec>,
    pub flow: Option<Member>,
    /// `cmdprio_percentage`, `cmdprio_bssplit`: which commands get which priority.
    pub priority: Option<PrioritySelector>,
    /// `read_iolog=`: the trace the clone replays.
    pub replay: Option<ReplayCursor>,
    /// `write_iolog=`: where the clone's I/O is logged.
    pub iolog: Option<IologWriter>,
}

impl Control {
    /// What `spec` asks for on `host`, if anything; `seed` and `label` seed the priority
    /// draws, `start` is when the clone starts.
    /// `traces` are the clone's trace to replay and its iolog to write, if any.
    pub(super) fn new(
        spec: &JobSpec,
        host: &HostConfig,
        seed: u64,
        label: u64,
        start: SimTime,
        traces: (Option<ReplayCursor>, Option<IologWriter>),
    ) -> Option<Box<Self>> {
        let (replay, iolog) = traces;
        let control = Control {
            verify: Verify::new(spec, host),
            latency: LatencyControl::new(spec, start),
            flow_spec: spec.flow,
            flow: None,
            priority: PrioritySelector::new(spec, seed, label),
            replay,
            iolog,
        };
        let used = control.verify.is_some()
            || control.latency.is_some()
            || control.flow_spec.is_some()
            || control.priority.is_some()
            || control.replay.is_some()
            || control.iolog.is_some();
        used.then(|| Box::new(control))
    }
}
