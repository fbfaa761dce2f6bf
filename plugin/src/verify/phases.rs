//! Where a scope's analysis spends its time, phase by phase (the index, the facts, the local
//! stores, each family of rules): what `verifier-probe phases` prints, so that work on the
//! verifier's per-block cost starts from a measurement rather than a guess.
//!
//! Recording is off unless [`collect`] is running on the thread: the analysis then pays one
//! thread-local read per phase, a few per scope.

use std::cell::RefCell;
use std::time::{Duration, Instant};

struct Clock {
    last: Instant,
    totals: Vec<(&'static str, Duration)>,
}

thread_local! {
    static CLOCK: RefCell<Option<Clock>> = const { RefCell::new(None) };
}

/// Runs `work` with the phases recorded; returns each phase's total time over every scope
/// analysed inside, in the order the phases first ran.
pub fn collect(work: impl FnOnce()) -> Vec<(&'static str, Duration)> {
    CLOCK.with(|clock| *clock.borrow_mut() = Some(Clock { last: Instant::now(), totals: Vec::new() }));
    work();
    CLOCK.with(|clock| clock.borrow_mut().take().map(|clock| clock.totals).unwrap_or_default())
}

/// Starts the clock of one scope's analysis (the time before it is no phase's).
pub(crate) fn start() {
    CLOCK.with(|clock| {
        if let Some(clock) = clock.borrow_mut().as_mut() {
            clock.last = Instant::now();
        }
    });
}

/// Ends phase `name`: the time since the last phase ended (or the scope started) is its.
pub(crate) fn end(name: &'static str) {
    CLOCK.with(|clock| {
        let mut clock = clock.borrow_mut();
        let Some(clock) = clock.as_mut() else { return };
        let now = Instant::now();
        let spent = now - clock.last;
        clock.last = now;
        match clock.totals.iter_mut().find(|(phase, _)| *phase == name) {
            Some((_, total)) => *total += spent,
            None => clock.totals.push((name, spent)),
        }
    });
}

#[cfg(test)]
mod tests {
    use super::{collect, end, start};

    #[test]
    fn phases_add_up_per_name_and_nothing_is_recorded_outside_a_collection() {
        end("outside");
        let totals = collect(|| {
            for _ in 0..3 {
                start();
                end("first");
                std::thread::sleep(std::time::Duration::from_millis(2));
                end("second");
            }
        });
        let names: Vec<&str> = totals.iter().map(|(name, _)| *name).collect();
        assert_eq!(names, ["first", "second"]);
        assert!(totals[1].1 >= std::time::Duration::from_millis(6));
        assert!(collect(|| end("late")).len() == 1);
    }
}
