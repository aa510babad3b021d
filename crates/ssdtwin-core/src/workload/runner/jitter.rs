//! A thread's CPU work varies, as a host's does. Each I/O call (fio's preparation and
//! submission, or a reap with its accounting) costs its mean times a log-normal factor
//! (what the caches still hold, the branch history, a contended lock or tag), and now and
//! then other work on its core (an interrupt, a softirq, the tick) holds it up. Waking a
//! blocked thread costs the host's `wakeup` times a log-normal factor (the idle state its
//! core left), and now and then the woken thread finds its core busy (another task, a
//! softirq, the timer tick) and waits an exponentially distributed time for it. A polling
//! thread never sleeps and pays no wakeup. Each clone draws from streams of its own, so
//! the draws change no offset, and the same seed gives the same run.

use crate::engine::{SimDuration, SimRng, UnitLognormal};
use crate::os::CpuJitter;

/// The draws of one thread.
#[derive(Clone, Debug)]
pub(super) struct CpuDraws {
    /// The wakeup's mean cost.
    wakeup_mean: SimDuration,
    wakeup_factor: UnitLognormal,
    preempt_chance: f64,
    preempt_mean_ns: f64,
    wakeups: SimRng,
    /// `None` where calls cost their mean.
    call_factor: Option<UnitLognormal>,
    call_preempt_chance: f64,
    calls: SimRng,
    /// A call's draw (factor, wait ns) given back (`put_back_call`): the next call uses it.
    held_call: Option<(f64, f64)>,
    /// The last call's draw.
    last_call: (f64, f64),
    /// Both streams and the held call as they were at the last [`Self::mark`].
    marked: (SimRng, SimRng, Option<(f64, f64)>),
}

impl CpuDraws {
    /// A thread's draws on a host whose wakeups cost `wakeup_mean` and whose work varies as
    /// `jitter` says; `None` where nothing varies.
    pub(super) fn new(wakeup_mean: SimDuration, jitter: CpuJitter, seed: u64, thread_number: u32) -> Option<Self> {
        if jitter.is_none() {
            return None;
        }
        let wakeups = SimRng::stream(seed, 0x5741_4b45_0000 ^ u64::from(thread_number));
        let calls = SimRng::stream(seed, 0x4341_4c4c_0000 ^ u64::from(thread_number));
        Some(CpuDraws {
            wakeup_mean,
            wakeup_factor: UnitLognormal::with_cv(jitter.wakeup_cv),
            preempt_chance: jitter.preempt_chance,
            preempt_mean_ns: jitter.preempt_mean.as_ns() as f64,
            call_factor: jitter.calls_vary().then(|| UnitLognormal::with_cv(jitter.call_cv)),
            call_preempt_chance: jitter.call_preempt_chance,
            held_call: None,
            last_call: (1.0, 0.0),
            marked: (wakeups.clone(), calls.clone(), None),
            wakeups,
            calls,
        })
    }

    /// `cost`, which holds one wakeup at its mean, with that wakeup drawn instead.
    pub(super) fn wakeup(&mut self, cost: SimDuration) -> SimDuration {
        let wakeup = self.wakeup_mean.as_ns() as f64 * self.wakeup_factor.sample(&mut self.wakeups);
        let wait = busy_core_wait(&mut self.wakeups, self.preempt_chance, self.preempt_mean_ns);
        SimDuration(cost.as_ns().saturating_sub(self.wakeup_mean.as_ns()) + (wakeup + wait + 0.5) as u64)
    }

    /// One call's CPU work, (user, system) at their means, with the call's factor drawn; a
    /// call held up by other work on its core has the wait in its system time.
    pub(super) fn call(&mut self, user: SimDuration, sys: SimDuration) -> (SimDuration, SimDuration) {
        let Some(f) = self.call_factor else { return (user, sys) };
        let (factor, wait) = self.held_call.take().unwrap_or_else(|| {
            let factor = f.sample(&mut self.calls);
            (factor, busy_core_wait(&mut self.calls, self.call_preempt_chance, self.preempt_mean_ns))
        });
        self.last_call = (factor, wait);
        (user.scaled(factor), SimDuration((sys.as_ns() as f64 * factor + wait + 0.5) as u64))
    }

    /// The call last priced by [`Self::call`] was not made after all (the caller priced it
    /// to decide, then took another path): the next call uses its draw, so a thread's
    /// draws stay one per call whichever path makes it.
    pub(super) fn put_back_call(&mut self) {
        if self.call_factor.is_some() {
            self.held_call = Some(self.last_call);
        }
    }

    /// Remembers where both streams are, for [`Self::rewind`].
    pub(super) fn mark(&mut self) {
        self.marked.0.clone_from(&self.wakeups);
        self.marked.1.clone_from(&self.calls);
        self.marked.2 = self.held_call;
    }

    /// The draws since the last [`Self::mark`] did not happen after all (the caller decided
    /// against the path it priced): the next ones repeat them, so the thread's draws stay
    /// one per call and per wakeup whichever path prices them.
    pub(super) fn rewind(&mut self) {
        self.wakeups.clone_from(&self.marked.0);
        self.calls.clone_from(&self.marked.1);
        self.held_call = self.marked.2;
    }
}

/// A wait for a busy core, ns: with `chance`, exponential of mean `mean_ns`.
fn busy_core_wait(rng: &mut SimRng, chance: f64, mean_ns: f64) -> f64 {
    if rng.chance(chance) { rng.exponential(mean_ns) } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draws(call_cv: f64, wakeup_cv: f64, chance: f64, mean_us: u64) -> CpuDraws {
        let jitter = CpuJitter {
            call_cv,
            call_preempt_chance: 0.0,
            wakeup_cv,
            preempt_chance: chance,
            preempt_mean: SimDuration::from_us(mean_us),
        };
        CpuDraws::new(SimDuration(1_000), jitter, 7, 1).expect("varies")
    }

    fn mean_and_cv(xs: &[f64]) -> (f64, f64) {
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt();
        (mean, sd / mean)
    }

    #[test]
    fn no_jitter_draws_nothing() {
        assert!(CpuDraws::new(SimDuration(1_000), CpuJitter::default(), 7, 1).is_none());
    }

    #[test]
    fn rewound_draws_repeat_and_the_streams_go_on() {
        let mut d = draws(0.5, 0.5, 0.1, 50);
        let us = SimDuration::from_us;
        d.mark();
        let first = (d.call(us(1), us(2)), d.wakeup(us(3)));
        d.rewind();
        assert_eq!((d.call(us(1), us(2)), d.wakeup(us(3))), first);
        let mut fresh = draws(0.5, 0.5, 0.1, 50);
        fresh.call(us(1), us(2));
        fresh.wakeup(us(3));
        assert_eq!(d.call(us(1), us(2)), fresh.call(us(1), us(2)), "the call stream goes on where it was");
        assert_eq!(d.wakeup(us(3)), fresh.wakeup(us(3)), "the wakeup stream goes on where it was");
    }

    #[test]
    fn a_call_keeps_its_mean_and_its_user_to_system_share() {
        let mut d = draws(0.5, 0.0, 0.0, 0);
        let xs: Vec<f64> = (0..200_000)
            .map(|_| {
                let (user, sys) = d.call(SimDuration(1_000), SimDuration(3_000));
                assert!(user.as_ns().abs_diff(sys.as_ns() / 3) <= 1, "{user:?} {sys:?}");
                (user + sys).as_ns() as f64
            })
            .collect();
        let (mean, cv) = mean_and_cv(&xs);
        assert!((mean / 4_000.0 - 1.0).abs() < 0.005, "{mean}");
        assert!((cv - 0.5).abs() < 0.01, "{cv}");
    }

    #[test]
    fn a_call_held_up_now_and_then_waits_its_chance_times_the_mean() {
        let jitter =
            CpuJitter { call_preempt_chance: 0.01, preempt_mean: SimDuration::from_us(8), ..CpuJitter::default() };
        let mut d = CpuDraws::new(SimDuration(1_000), jitter, 7, 1).expect("varies");
        let n = 400_000;
        let mut waits: Vec<f64> = (0..n)
            .map(|_| {
                let (user, sys) = d.call(SimDuration(500), SimDuration(1_500));
                assert_eq!(user, SimDuration(500), "a wait is system time");
                sys.as_ns() as f64 - 1_500.0
            })
            .collect();
        let mean = waits.iter().sum::<f64>() / n as f64;
        // 1 % of calls wait 8 us on average: 80 ns per call.
        assert!((mean - 80.0).abs() < 6.0, "{mean}");
        waits.sort_by(f64::total_cmp);
        // P(wait > x) = 0.01 e^(-x / 8 us): the 99.9th percentile is 8 us × ln 10.
        let p999 = waits[(n as f64 * 0.999) as usize];
        assert!((p999 / (8_000.0 * 10f64.ln()) - 1.0).abs() < 0.08, "{p999}");
    }

    #[test]
    fn a_call_put_back_is_the_next_one_priced() {
        let mut d = draws(0.5, 0.0, 0.0, 0);
        let us = SimDuration::from_us;
        let first = d.call(us(1), us(2));
        d.put_back_call();
        assert_eq!(d.call(us(1), us(2)), first, "the same draw, on the call actually made");
        let mut fresh = draws(0.5, 0.0, 0.0, 0);
        fresh.call(us(1), us(2));
        assert_eq!(d.call(us(1), us(2)), fresh.call(us(1), us(2)), "and the stream goes on from there");
    }

    #[test]
    fn calls_without_a_spread_draw_nothing_and_leave_the_wakeups_as_they_were() {
        let mut with_calls = draws(0.0, 0.3, 0.0, 0);
        let mut without = draws(0.0, 0.3, 0.0, 0);
        for _ in 0..100 {
            assert_eq!(with_calls.call(SimDuration(700), SimDuration(900)), (SimDuration(700), SimDuration(900)));
            assert_eq!(with_calls.wakeup(SimDuration(1_500)), without.wakeup(SimDuration(1_500)));
        }
    }

    #[test]
    fn the_wakeup_keeps_its_mean_and_gets_the_spread_asked_for() {
        let mut d = draws(0.0, 0.3, 0.0, 0);
        // 500 ns of other work plus the 1000 ns wakeup.
        let xs: Vec<f64> = (0..200_000).map(|_| d.wakeup(SimDuration(1_500)).as_ns() as f64 - 500.0).collect();
        let (mean, cv) = mean_and_cv(&xs);
        assert!((mean - 1_000.0).abs() < 5.0, "{mean}");
        assert!((cv - 0.3).abs() < 0.01, "{cv}");
    }

    #[test]
    fn preemption_adds_its_chance_times_its_mean_and_an_exponential_tail() {
        let mut d = draws(0.0, 0.0, 0.01, 20);
        let n = 400_000;
        let mut waits: Vec<f64> = (0..n).map(|_| d.wakeup(SimDuration(1_000)).as_ns() as f64 - 1_000.0).collect();
        let mean = waits.iter().sum::<f64>() / n as f64;
        // 1 % of wakeups wait 20 us on average: 200 ns per wakeup.
        assert!((mean - 200.0).abs() < 15.0, "{mean}");
        waits.sort_by(f64::total_cmp);
        // P(wait > x) = 0.01 e^(-x / 20 us): the 99.9th percentile is 20 us × ln 10.
        let p999 = waits[(n as f64 * 0.999) as usize];
        assert!((p999 / (20_000.0 * 10f64.ln()) - 1.0).abs() < 0.08, "{p999}");
    }
}
