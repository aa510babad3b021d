//! Wakeups that vary, as a host's do: the cost of waking a blocked thread is the host's
//! `wakeup` times a log-normal factor (the idle state its core left, what its caches still
//! hold), and now and then the woken thread finds its core busy (another task, a softirq,
//! the timer tick) and waits an exponentially distributed time for it. A polling thread
//! never sleeps and pays none of it. Each clone draws from a stream of its own, so the
//! draws change no offset, and the same seed gives the same run.

use crate::engine::{SimDuration, SimRng, UnitLognormal};
use crate::os::WakeupJitter;

/// The wakeups of one thread.
#[derive(Clone, Debug)]
pub(super) struct WakeupDraws {
    /// The wakeup's mean cost.
    mean: SimDuration,
    factor: UnitLognormal,
    preempt_chance: f64,
    preempt_mean_ns: f64,
    rng: SimRng,
    /// A wakeup drawn and given back (`put_back`): the next `vary` uses it.
    held: Option<u64>,
    /// The last wakeup drawn, ns.
    last: u64,
}

impl WakeupDraws {
    /// A thread's draws on a host whose wakeups cost `mean` and vary as `jitter` says;
    /// `None` where they do not vary.
    pub(super) fn new(mean: SimDuration, jitter: WakeupJitter, seed: u64, thread_number: u32) -> Option<Self> {
        (!jitter.is_none()).then(|| WakeupDraws {
            mean,
            factor: UnitLognormal::with_cv(jitter.cv),
            preempt_chance: jitter.preempt_chance,
            preempt_mean_ns: jitter.preempt_mean.as_ns() as f64,
            rng: SimRng::stream(seed, 0x5741_4b45_0000 ^ u64::from(thread_number)),
            held: None,
            last: 0,
        })
    }

    /// `cost`, which holds one wakeup at its mean, with that wakeup drawn instead.
    pub(super) fn vary(&mut self, cost: SimDuration) -> SimDuration {
        let drawn = match self.held.take() {
            Some(ns) => ns,
            None => self.draw(),
        };
        self.last = drawn;
        SimDuration(cost.as_ns().saturating_sub(self.mean.as_ns()) + drawn)
    }

    /// The wakeup last used by `vary` did not happen after all (the caller decided against
    /// the path it priced): the next `vary` uses it, so the thread's draws stay one per
    /// wakeup whichever path prices it.
    pub(super) fn put_back(&mut self) {
        self.held = Some(self.last);
    }

    fn draw(&mut self) -> u64 {
        let wakeup = self.mean.as_ns() as f64 * self.factor.sample(&mut self.rng);
        let wait = if self.rng.chance(self.preempt_chance) {
            // Exponential with the configured mean; 1 − u is in (0, 1], so the log is finite.
            -self.preempt_mean_ns * (1.0 - self.rng.unit_f64()).ln()
        } else {
            0.0
        };
        (wakeup + wait + 0.5) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draws(cv: f64, chance: f64, mean_us: u64) -> WakeupDraws {
        let jitter = WakeupJitter { cv, preempt_chance: chance, preempt_mean: SimDuration::from_us(mean_us) };
        WakeupDraws::new(SimDuration(1_000), jitter, 7, 1).expect("varies")
    }

    #[test]
    fn no_jitter_draws_nothing() {
        assert!(WakeupDraws::new(SimDuration(1_000), WakeupJitter::default(), 7, 1).is_none());
    }

    #[test]
    fn a_wakeup_put_back_is_the_next_one_used() {
        let mut d = draws(0.5, 0.1, 50);
        let first = d.vary(SimDuration(1_000));
        d.put_back();
        assert_eq!(d.vary(SimDuration(1_000)), first);
        let mut fresh = draws(0.5, 0.1, 50);
        fresh.vary(SimDuration(1_000));
        assert_eq!(d.vary(SimDuration(1_000)), fresh.vary(SimDuration(1_000)), "the stream goes on where it was");
    }

    #[test]
    fn the_cost_keeps_its_mean_and_gets_the_spread_asked_for() {
        let mut d = draws(0.3, 0.0, 0);
        let n = 200_000;
        // 500 ns of other work plus the 1000 ns wakeup.
        let xs: Vec<f64> = (0..n).map(|_| d.vary(SimDuration(1_500)).as_ns() as f64 - 500.0).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64).sqrt();
        assert!((mean - 1_000.0).abs() < 5.0, "{mean}");
        assert!((sd / mean - 0.3).abs() < 0.01, "{}", sd / mean);
    }

    #[test]
    fn preemption_adds_its_chance_times_its_mean_and_an_exponential_tail() {
        let mut d = draws(0.0, 0.01, 20);
        let n = 400_000;
        let mut waits: Vec<f64> = (0..n).map(|_| d.vary(SimDuration(1_000)).as_ns() as f64 - 1_000.0).collect();
        let mean = waits.iter().sum::<f64>() / n as f64;
        // 1 % of wakeups wait 20 us on average: 200 ns per wakeup.
        assert!((mean - 200.0).abs() < 15.0, "{mean}");
        waits.sort_by(f64::total_cmp);
        // P(wait > x) = 0.01 e^(-x / 20 us): the 99.9th percentile is 20 us × ln 10.
        let p999 = waits[(n as f64 * 0.999) as usize];
        assert!((p999 / (20_000.0 * 10f64.ln()) - 1.0).abs() < 0.08, "{p999}");
    }
}
