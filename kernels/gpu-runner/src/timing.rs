//! How a figure is timed. One event pair around one launch measures what the host takes to
//! submit it (about 6 µs on the H200, even for an empty kernel), so every figure here comes
//! from a CUDA graph of `launches` back-to-back launches, captured once and replayed between
//! two events: the elapsed time over `launches` is the time per launch as the device sees it
//! (the launch's own latency included, the host's submission not). The copy a decode shape is
//! judged against is timed the same way, on the same bytes, so that small shapes compare a
//! kernel with a copy under identical timing. One difference remains: an entry that waits for
//! the prior grid (`rms_norm`, `softmax_rows`) is launched with programmatic dependent launch,
//! so in its graph each launch overlaps the previous one's tail (0.3 µs of a 3 µs decode launch
//! on the H200), as it would after a dependent-aware kernel in a model; a memcpy node has no
//! such overlap, and PyTorch's kernels are not launched that way.
//!
//! This module holds the plan (how many launches per event pair, per kind of case) and the
//! arithmetic on the measured times; [`crate::gpu`] does the capturing and replaying.

use serde::{Deserialize, Serialize};

/// Launches per graph for a correctness case: enough to take the host out of the figure.
pub const CORRECTNESS_LAUNCHES: usize = 10;
/// Launches per graph for a large shape (0.03–0.4 ms each, where one launch per event pair is
/// already honest; a few keep the figure per launch, like the others).
pub const LARGE_LAUNCHES: usize = 10;
/// Launches per graph for a decode shape (1–20 µs each): 100 make the event pair's own cost
/// (a few µs) a few hundredths of a launch.
pub const DECODE_LAUNCHES: usize = 100;

/// How a case's time was measured, as the report states it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Method {
    /// Back-to-back launches in the graph replayed between one event pair.
    pub launches: usize,
    /// Event pairs (graph replays) whose per-launch times give the median.
    pub repeats: usize,
}

impl Method {
    /// The words the report prints for it.
    pub fn describe(&self) -> String {
        format!(
            "median of {} event pairs, each around a CUDA graph of {} back-to-back launches, per launch",
            self.repeats, self.launches
        )
    }
}

/// The median and (min, max) time per launch, from each event pair's elapsed time around a
/// graph of `launches` launches. `None` when nothing was timed.
pub fn per_launch(elapsed_ms: &[f64], launches: usize) -> Option<Spread> {
    if elapsed_ms.is_empty() || launches == 0 {
        return None;
    }
    let mut times: Vec<f64> = elapsed_ms.iter().map(|ms| ms / launches as f64).collect();
    times.sort_by(f64::total_cmp);
    Some(Spread { median_ms: times[times.len() / 2], low_ms: times[0], high_ms: times[times.len() - 1] })
}

/// Times per launch: the median and the extremes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    pub median_ms: f64,
    pub low_ms: f64,
    pub high_ms: f64,
}

/// The bytes each side of a device copy moves to match a kernel's traffic of `bytes` (read
/// plus written): a copy of `n` bytes reads `n` and writes `n`. Whole floats, at least one.
pub fn copy_bytes_for(bytes: u64) -> usize {
    ((bytes / 2).div_ceil(4) * 4).max(4) as usize
}

/// A kernel's fraction of a copy of the same traffic timed the same way: the copy's time
/// over the kernel's (1.0 = as fast as copying its bytes).
pub fn fraction_of_same_copy(kernel_ms: f64, copy_ms: f64) -> f64 {
    copy_ms / kernel_ms
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_graph_of_launches_gives_the_time_per_launch() {
        // Three replays of 100 launches: 0.5, 0.7 and 0.6 ms in all.
        let spread = per_launch(&[0.5, 0.7, 0.6], 100).unwrap();
        assert!((spread.median_ms - 0.006).abs() < 1e-15);
        assert!((spread.low_ms - 0.005).abs() < 1e-15);
        assert!((spread.high_ms - 0.007).abs() < 1e-15);
        assert_eq!(per_launch(&[], 100), None);
        assert_eq!(per_launch(&[1.0], 0), None);
    }

    #[test]
    fn the_same_copy_moves_half_the_traffic_each_way() {
        // rms_norm 4 × 32,768: 512 KiB read, 512 KiB written (weights aside): a 512 KiB copy.
        assert_eq!(copy_bytes_for(1 << 20), 1 << 19);
        // Odd byte counts round up to whole floats; nothing still copies one float.
        assert_eq!(copy_bytes_for(10), 8);
        assert_eq!(copy_bytes_for(0), 4);
        // A kernel twice the copy's time is at half of it.
        assert_eq!(fraction_of_same_copy(0.002, 0.001), 0.5);
    }

    #[test]
    fn the_report_says_how_a_figure_was_timed() {
        let text = Method { launches: DECODE_LAUNCHES, repeats: 30 }.describe();
        assert!(text.contains("30 event pairs"), "{text}");
        assert!(text.contains("graph of 100 back-to-back launches, per launch"), "{text}");
    }
}
