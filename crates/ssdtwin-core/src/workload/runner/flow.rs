//! fio's flows (`flow.c`): jobs with the same `flow_id` share a counter of I/Os issued and
//! a total weight. Before each I/O a job compares its share of the counter with its share
//! of the weight (`flow=`); while it is ahead it does not issue: it sleeps `flow_sleep`
//! after letting its I/O in flight complete, or, without `flow_sleep`, retries at once
//! (here: it waits until another job of the flow issues or leaves, the next moment its
//! share can change). A job joins its flow when it starts and leaves it, taking its
//! counts and weight along, when it ends.

use crate::os::CloneId;
use crate::workload::FlowSpec;

/// One clone's membership.
#[derive(Clone, Copy, Debug)]
pub(super) struct Member {
    /// Index into [`Flows`].
    flow: usize,
    weight: u64,
    /// I/Os it issued (fio's `td->flow_counter`).
    issued: u64,
    pub sleep_ns: u64,
}

/// One flow: the shared counter (fio starts it at 1), the weights of its running jobs and
/// the clones waiting for their share to fall.
#[derive(Debug)]
struct Flow {
    id: u32,
    counter: u64,
    total_weight: u64,
    waiting: Vec<CloneId>,
}

/// Every flow of a run.
#[derive(Debug, Default)]
pub(super) struct Flows {
    flows: Vec<Flow>,
}

impl Flows {
    /// Clone joins the flow `spec` names (`flow_init_job`).
    pub(super) fn join(&mut self, spec: &FlowSpec) -> Member {
        let flow = self.flows.iter().position(|f| f.id == spec.id).unwrap_or_else(|| {
            self.flows.push(Flow { id: spec.id, counter: 1, total_weight: 0, waiting: Vec::new() });
            self.flows.len() - 1
        });
        self.flows[flow].total_weight += u64::from(spec.weight);
        Member { flow, weight: u64::from(spec.weight), issued: 0, sleep_ns: spec.sleep_ns }
    }

    /// `flow_threshold_exceeded`: `None` while `m` is ahead of its share; otherwise its
    /// next I/O is counted and the clones to wake (the count moved) are returned.
    pub(super) fn may_issue(&mut self, m: &mut Member) -> Option<Vec<CloneId>> {
        let f = &mut self.flows[m.flow];
        // td->flow_counter / flow->flow_counter > td->o.flow / flow->total_weight, in integers.
        let ahead = u128::from(m.issued) * u128::from(f.total_weight) > u128::from(m.weight) * u128::from(f.counter);
        if ahead {
            return None;
        }
        f.counter += 1;
        m.issued += 1;
        Some(std::mem::take(&mut f.waiting))
    }

    /// Clone `clone` waits until its flow's count moves.
    pub(super) fn wait(&mut self, m: &Member, clone: CloneId) {
        self.flows[m.flow].waiting.push(clone);
    }

    /// The clone ends (`flow_exit_job`): its counts and weight leave the flow. Returns the
    /// clones to wake.
    pub(super) fn leave(&mut self, m: &Member) -> Vec<CloneId> {
        let f = &mut self.flows[m.flow];
        f.counter -= m.issued;
        f.total_weight -= m.weight;
        std::mem::take(&mut f.waiting)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(id: u32, weight: u32) -> FlowSpec {
        FlowSpec { id, weight, sleep_ns: 0 }
    }

    /// Issues in turn for as long as each may, `rounds` times; returns each member's count.
    fn run(flows: &mut Flows, members: &mut [Member], rounds: usize) -> Vec<u64> {
        for _ in 0..rounds {
            for m in members.iter_mut() {
                while flows.may_issue(m).is_some() {}
            }
        }
        members.iter().map(|m| m.issued).collect()
    }

    #[test]
    fn issues_follow_the_weights_of_one_flow() {
        let mut flows = Flows::default();
        let mut members = [flows.join(&spec(0, 1)), flows.join(&spec(0, 8))];
        let counts = run(&mut flows, &mut members, 1000);
        // 1:8, within one I/O of each share of the counter.
        let total: u64 = counts.iter().sum();
        assert!(counts[0].abs_diff(total / 9) <= 1, "{counts:?}");
        assert!(counts[1].abs_diff(total * 8 / 9) <= 2, "{counts:?}");
    }

    #[test]
    fn flows_with_different_ids_do_not_hold_each_other_back() {
        let mut flows = Flows::default();
        let mut a = flows.join(&spec(1, 1));
        let mut b = flows.join(&spec(2, 1));
        for _ in 0..100 {
            assert!(flows.may_issue(&mut a).is_some());
        }
        assert!(flows.may_issue(&mut b).is_some());
    }

    #[test]
    fn a_member_that_leaves_releases_the_others() {
        let mut flows = Flows::default();
        let mut a = flows.join(&spec(0, 1));
        let b = flows.join(&spec(0, 1));
        while flows.may_issue(&mut a).is_some() {}
        flows.wait(&a, CloneId(0));
        assert!(flows.may_issue(&mut a).is_none());
        let woken = flows.leave(&b);
        assert_eq!(woken, vec![CloneId(0)]);
        assert!(flows.may_issue(&mut a).is_some());
    }
}
