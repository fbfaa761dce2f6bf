//! `gpu-runner --compare OLD.ptx NEW.ptx`: two builds of the kernels module (before and after a
//! pin bump, say) run on the same inputs, and judged side by side.
//!
//! Every case of the catalogue runs on both modules and is checked against the host reference
//! for each. Timing cases are timed *interleaved*: each round launches both modules once, the
//! one going first alternating from round to round ([`interleaved_order`]), so that drift of
//! the device (clocks, temperature, a neighbour) lands on both sides alike. A case's ratio is
//! the median over rounds of `new / old` ([`Paired::median_ratio`]); the judged case of a
//! kernel's shape is the launch the old module ran fastest, and a shape whose ratio exceeds
//! [`SLOWER_LIMIT`] flags its kernel as slower.
//!
//! Everything here is GPU-free: the GPU side (`gpu::Gpu::time_interleaved`) only fills
//! [`Paired`]. The JSON document ([`Comparison`]) is what `just report` charts.

use serde::{Deserialize, Serialize};

use crate::cases::CaseId;
use crate::report::RunOn;

/// A shape more than 3 % slower in the new module flags its kernel.
pub const SLOWER_LIMIT: f64 = 1.03;

/// Which module a launch belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Side {
    Old,
    New,
}

/// The launch order of `rounds` rounds: each round launches both modules once, old first in
/// even rounds and new first in odd ones, so that neither side always follows the other.
pub fn interleaved_order(rounds: usize) -> Vec<[Side; 2]> {
    (0..rounds)
        .map(|round| if round % 2 == 0 { [Side::Old, Side::New] } else { [Side::New, Side::Old] })
        .collect()
}

/// The times of one case, one per round and module, in round order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Paired {
    pub old_ms: Vec<f64>,
    pub new_ms: Vec<f64>,
}

impl Paired {
    /// Records one timed launch.
    pub fn push(&mut self, side: Side, ms: f64) {
        match side {
            Side::Old => self.old_ms.push(ms),
            Side::New => self.new_ms.push(ms),
        }
    }

    /// `new / old` of each round.
    pub fn ratios(&self) -> Vec<f64> {
        self.old_ms.iter().zip(&self.new_ms).map(|(old, new)| new / old).collect()
    }

    /// The median of the rounds' ratios: a round-to-round drift cancels within each pair, and
    /// the odd disturbed round does not move the median. `None` without a finite pair.
    pub fn median_ratio(&self) -> Option<f64> {
        median(self.ratios().into_iter().filter(|r| r.is_finite() && *r > 0.0).collect())
    }

    pub fn old_median(&self) -> Option<f64> {
        median(self.old_ms.clone())
    }

    pub fn new_median(&self) -> Option<f64> {
        median(self.new_ms.clone())
    }
}

/// The median (the mean of the two middle values for an even count), `None` when empty.
pub fn median(mut values: Vec<f64>) -> Option<f64> {
    values.retain(|v| !v.is_nan());
    values.sort_by(f64::total_cmp);
    let middle = values.len() / 2;
    match values.len() {
        0 => None,
        n if n % 2 == 1 => Some(values[middle]),
        _ => Some((values[middle - 1] + values[middle]) / 2.0),
    }
}

/// A timed case's medians on both modules (none where untimed) and the median of the
/// interleaved rounds' `new / old`.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Medians {
    pub old_median_ms: Option<f64>,
    pub new_median_ms: Option<f64>,
    pub ratio: Option<f64>,
}

impl Medians {
    /// The medians of `paired`'s rounds.
    pub fn of(paired: &Paired) -> Medians {
        Medians {
            old_median_ms: paired.old_median(),
            new_median_ms: paired.new_median(),
            ratio: paired.median_ratio(),
        }
    }
}

/// One case on both modules (its JSON fields flat, as before the identity and medians were
/// records of their own).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseComparison {
    #[serde(flatten)]
    pub case: CaseId,
    /// A timing case (large or decode shape); the others ran once each, untimed.
    pub timed: bool,
    /// A decode shape (few long rows).
    pub decode: bool,
    pub old_passed: bool,
    pub new_passed: bool,
    pub old_result: String,
    pub new_result: String,
    /// The two outputs are equal bit for bit (guard elements included).
    pub identical_outputs: bool,
    #[serde(flatten)]
    pub medians: Medians,
}

/// One timing shape of one kernel, judged on the launch the old module ran fastest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShapeComparison {
    #[serde(flatten)]
    pub case: CaseId,
    pub decode: bool,
    #[serde(flatten)]
    pub medians: Medians,
    /// `ratio` above [`SLOWER_LIMIT`].
    pub slower: bool,
}

/// Both modules' verdict for one kernel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelComparison {
    pub kernel: String,
    pub cases: usize,
    /// Cases that failed their check on the old module, and on the new one.
    pub old_failed: usize,
    pub new_failed: usize,
    /// Cases whose two outputs differ in any bit.
    pub outputs_differ: usize,
    /// Some timing shape of the kernel is more than [`SLOWER_LIMIT`] slower.
    pub slower: bool,
}

/// The whole comparison: what `--compare … --json FILE` writes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    #[serde(flatten)]
    pub run: RunOn,
    pub old: String,
    pub new: String,
    pub rounds: usize,
    pub slower_limit: f64,
    pub kernels: Vec<KernelComparison>,
    pub shapes: Vec<ShapeComparison>,
    pub cases: Vec<CaseComparison>,
}

impl Comparison {
    /// Judges `cases` (in catalogue order): per kernel, the counts; per timing shape, the
    /// launch the old module ran fastest, its ratio and whether it is slower.
    pub fn judge(
        device: &str,
        old: &str,
        new: &str,
        seed: u64,
        rounds: usize,
        cases: Vec<CaseComparison>,
    ) -> Comparison {
        let mut shapes: Vec<ShapeComparison> = Vec::new();
        for case in cases.iter().filter(|c| c.timed) {
            if shapes.iter().any(|s| s.case.same_shape(&case.case)) {
                continue;
            }
            let old_ms = |c: &CaseComparison| c.medians.old_median_ms.unwrap_or(f64::INFINITY);
            let fastest = cases
                .iter()
                .filter(|c| c.timed && c.case.same_shape(&case.case))
                .min_by(|a, b| old_ms(a).total_cmp(&old_ms(b)))
                .expect("the shape came from these cases");
            shapes.push(ShapeComparison {
                case: fastest.case.clone(),
                decode: fastest.decode,
                medians: fastest.medians,
                slower: fastest.medians.ratio.is_some_and(|r| r > SLOWER_LIMIT),
            });
        }
        let mut kernels: Vec<KernelComparison> = Vec::new();
        for case in &cases {
            let kernel = &case.case.kernel;
            if !kernels.iter().any(|k| &k.kernel == kernel) {
                let of_kernel = cases.iter().filter(|c| &c.case.kernel == kernel);
                kernels.push(KernelComparison {
                    kernel: kernel.clone(),
                    cases: of_kernel.clone().count(),
                    old_failed: of_kernel.clone().filter(|c| !c.old_passed).count(),
                    new_failed: of_kernel.clone().filter(|c| !c.new_passed).count(),
                    outputs_differ: of_kernel.filter(|c| !c.identical_outputs).count(),
                    slower: shapes.iter().any(|s| &s.case.kernel == kernel && s.slower),
                });
            }
        }
        Comparison {
            run: RunOn { device: device.to_owned(), seed },
            old: old.to_owned(),
            new: new.to_owned(),
            rounds,
            slower_limit: SLOWER_LIMIT,
            kernels,
            shapes,
            cases,
        }
    }

    /// Kernels whose cases fail on the new module.
    pub fn new_failures(&self) -> Vec<&str> {
        self.kernels.iter().filter(|k| k.new_failed > 0).map(|k| k.kernel.as_str()).collect()
    }

    /// Kernels more than [`SLOWER_LIMIT`] slower on some timing shape.
    pub fn slower(&self) -> Vec<&str> {
        self.kernels.iter().filter(|k| k.slower).map(|k| k.kernel.as_str()).collect()
    }

    /// The per-shape table and a closing line, as the runner prints them.
    pub fn render(&self) -> String {
        let mut out = format!(
            "\n== old {} vs new {}: median of {} interleaved rounds of new/old, on the old module's fastest launch\n",
            self.old, self.new, self.rounds
        );
        let ms = |v: Option<f64>| v.map_or("—".to_owned(), |v| format!("{v:.4} ms"));
        let header = ["kernel", "shape", "launch", "old", "new", "new/old", ""].map(str::to_owned);
        let mut lines = vec![header];
        for s in &self.shapes {
            lines.push([
                s.case.kernel.clone(),
                s.case.shape.clone(),
                s.case.launch.clone(),
                ms(s.medians.old_median_ms),
                ms(s.medians.new_median_ms),
                s.medians.ratio.map_or("—".to_owned(), |r| format!("{r:.3}")),
                if s.slower {
                    format!("SLOWER (> {:.0} %)", (SLOWER_LIMIT - 1.0) * 100.0)
                } else {
                    String::new()
                },
            ]);
        }
        let mut widths = [0usize; 7];
        for line in &lines {
            for (width, cell) in widths.iter_mut().zip(line) {
                *width = (*width).max(cell.chars().count());
            }
        }
        for line in &lines {
            let cells: Vec<String> = line
                .iter()
                .zip(widths)
                .map(|(cell, w)| format!("{cell}{}", " ".repeat(w - cell.chars().count())))
                .collect();
            out.push_str(&format!("  {}\n", cells.join("  ").trim_end()));
        }
        out.push_str("\n== correctness, per kernel\n");
        for k in &self.kernels {
            out.push_str(&format!(
                "  {}: {} cases; old {} failed, new {} failed; {} with differing outputs\n",
                k.kernel, k.cases, k.old_failed, k.new_failed, k.outputs_differ
            ));
        }
        let slower = self.slower();
        out.push_str(&format!(
            "\ncompare: {} kernels, new fails on {}, {} slower by more than {:.0} %{}\n",
            self.kernels.len(),
            self.new_failures().len(),
            slower.len(),
            (SLOWER_LIMIT - 1.0) * 100.0,
            if slower.is_empty() { String::new() } else { format!(" ({})", slower.join(", ")) }
        ));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_alternate_which_module_goes_first() {
        let order = interleaved_order(4);
        assert_eq!(
            order,
            [[Side::Old, Side::New], [Side::New, Side::Old], [Side::Old, Side::New], [Side::New, Side::Old]]
        );
        let firsts = order.iter().filter(|round| round[0] == Side::Old).count();
        assert_eq!(firsts, 2, "each module goes first in half the rounds");
    }

    #[test]
    fn the_ratio_is_the_median_of_paired_rounds_so_drift_cancels() {
        // The device slows down by 50 % halfway through; new is 4 % slower in every round.
        // Each round's pair sees the same device, so the ratio is exactly 4 %.
        let mut paired = Paired::default();
        for round in 0..10 {
            let base = if round < 5 { 1.0 } else { 1.5 };
            paired.push(Side::Old, base);
            paired.push(Side::New, base * 1.04);
        }
        let ratio = paired.median_ratio().unwrap();
        assert!((ratio - 1.04).abs() < 1e-12, "{ratio}");
        assert_eq!(paired.old_median(), Some(1.25), "the medians see the drift");
        // One disturbed round does not move it.
        paired.old_ms[3] = 100.0;
        assert!((paired.median_ratio().unwrap() - 1.04).abs() < 1e-12);
        assert_eq!(Paired::default().median_ratio(), None);
    }

    fn case(kernel: &str, shape: &str, launch: &str, old: f64, ratio: f64) -> CaseComparison {
        CaseComparison {
            case: CaseId { kernel: kernel.to_owned(), shape: shape.to_owned(), launch: launch.to_owned() },
            timed: true,
            decode: false,
            old_passed: true,
            new_passed: true,
            old_result: "pass".to_owned(),
            new_result: "pass".to_owned(),
            identical_outputs: true,
            medians: Medians {
                old_median_ms: Some(old),
                new_median_ms: Some(old * ratio),
                ratio: Some(ratio),
            },
        }
    }

    #[test]
    fn a_shape_over_three_percent_slower_on_the_fastest_old_launch_flags_its_kernel() {
        let mut untimed = case("saxpy", "n=1", "<<<1, 256>>>", 0.0, 1.0);
        (untimed.timed, untimed.medians) = (false, Medians::default());
        untimed.new_passed = false;
        untimed.identical_outputs = false;
        let cases = vec![
            // vector_add: its fastest old launch is 2 % slower (not flagged); a slower launch
            // that got 10 % slower does not count.
            case("vector_add", "n=64", "<<<528, 256>>>", 1.0, 1.02),
            case("vector_add", "n=64", "<<<1056, 256>>>", 1.2, 1.10),
            // saxpy: 5 % slower on its only launch.
            case("saxpy", "n=64", "<<<528, 256>>>", 1.0, 1.05),
            untimed,
            // rms_norm: fine on the large shape, 4 % slower on a decode shape.
            case("rms_norm", "16384×4096", "<<<16384, 256>>>", 2.0, 0.99),
            case("rms_norm", "4×32768", "<<<4, 1024>>>", 0.01, 1.04),
        ];
        let comparison = Comparison::judge("test", "old.ptx", "new.ptx", 1, 30, cases);
        assert_eq!(comparison.shapes.len(), 4);
        assert_eq!(comparison.shapes[0].case.launch, "<<<528, 256>>>");
        assert!(!comparison.shapes[0].slower);
        assert_eq!(comparison.slower(), ["saxpy", "rms_norm"]);
        assert_eq!(comparison.new_failures(), ["saxpy"]);
        let saxpy = &comparison.kernels[1];
        assert_eq!((saxpy.cases, saxpy.old_failed, saxpy.new_failed, saxpy.outputs_differ), (2, 0, 1, 1));
        let text = comparison.render();
        assert!(
            text.contains("compare: 3 kernels, new fails on 1, 2 slower by more than 3 % (saxpy, rms_norm)"),
            "{text}"
        );
        let saxpy_line = text.lines().find(|l| l.trim_start().starts_with("saxpy")).unwrap();
        assert!(saxpy_line.contains("1.050") && saxpy_line.ends_with("SLOWER (> 3 %)"), "{text}");
        // The document the report reads round-trips through JSON.
        let back: Comparison = serde_json::from_str(&serde_json::to_string(&comparison).unwrap()).unwrap();
        assert_eq!(
            (&back.kernels, back.slower(), back.cases.len()),
            (&comparison.kernels, comparison.slower(), 6)
        );
    }

    #[test]
    fn a_comparison_recorded_on_the_h200_still_reads_with_its_flat_fields() {
        let recorded = include_str!("../results/h200-compare-opt3-vs-opt1.json");
        let comparison: Comparison = serde_json::from_str(recorded).unwrap();
        let first = &comparison.cases[0];
        assert_eq!((first.case.kernel.as_str(), first.case.shape.as_str()), ("vector_add", "n=0"));
        let timed = &comparison.shapes[0];
        assert!(timed.medians.ratio.is_some_and(|r| r > 0.9) && timed.medians.old_median_ms.is_some());
        // Written back, the identity and the medians are fields of the case itself, as before.
        let written = serde_json::to_value(&comparison).unwrap();
        assert_eq!(written["cases"][0]["kernel"], "vector_add");
        assert!(written["shapes"][0]["ratio"].is_number() && written["shapes"][0].get("medians").is_none());
    }
}
