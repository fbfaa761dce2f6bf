//! Every entry's launch contract (`cases::contract`): each entry has one, taken from its doc
//! comment; every launch the catalogue makes is inside it; each entry's out-of-contract launch
//! is refused naming the entry; and the main run's bookkeeping fails a launch that is not.

use std::path::Path;

use anyhow::Context;
use gpu_runner::cases::contract::{self, CONTRACTS, Refusal, Shared, Source, check, out_of_contract_case};
use gpu_runner::cases::{
    Case, Kernel, Launch, Shape, chained_cases, correctness_cases, decode_cases, timing_cases,
};
use gpu_runner::gemm_sweep;

/// Every entry the catalogue launches, with its kernel.
fn entries() -> Vec<(Kernel, &'static str)> {
    Kernel::ALL
        .into_iter()
        .flat_map(|kernel| kernel.entries().into_iter().map(move |entry| (kernel, entry)))
        .collect()
}

/// Every case the runner launches for `kernel` on `sms` multiprocessors (the GEMM sweep's too).
fn every_case(kernel: Kernel, sms: usize) -> Vec<Case> {
    let mut cases = correctness_cases(kernel, sms);
    cases.extend(timing_cases(kernel, sms));
    cases.extend(decode_cases(kernel));
    cases.extend(chained_cases(kernel));
    if gemm_sweep::ENTRIES.contains(&kernel) {
        cases.extend(gemm_sweep::cases(&gemm_sweep::SWEEP, kernel).unwrap());
    }
    cases
}

/// The text of `kernels/src/<file>` as its comments read: comment markers gone, whitespace
/// collapsed.
fn doc_text(file: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../src").join(file);
    let source = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let lines = source.lines().map(|line| line.trim().trim_start_matches('/').trim_start_matches('!'));
    collapse(&lines.collect::<Vec<_>>().join(" "))
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The `extern "ptx-kernel"` entries of `kernels/src`, by name.
fn kernel_source_entries() -> Vec<String> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../src");
    let mut names = Vec::new();
    for file in std::fs::read_dir(&folder).unwrap() {
        let path = file.unwrap().path();
        if path.extension().is_none_or(|x| x != "rs") {
            continue;
        }
        for line in std::fs::read_to_string(&path).unwrap().lines() {
            if let Some(rest) = line.split("extern \"ptx-kernel\" fn ").nth(1) {
                names.push(rest.split('(').next().unwrap().trim().to_owned());
            }
        }
    }
    names.sort();
    names
}

#[test]
fn every_entry_has_one_contract_quoted_from_its_doc_comment() {
    for (_, entry) in entries() {
        assert!(contract::contract(entry).is_some(), "{entry} has no launch contract in CONTRACTS");
    }
    // Every entry of the kernels' sources, not only the catalogue's, and no row for anything else.
    let mut table: Vec<String> = CONTRACTS.iter().map(|c| c.entry.to_owned()).collect();
    table.sort();
    let sources = kernel_source_entries();
    assert!(sources.len() >= 24, "found only {} entries in kernels/src", sources.len());
    assert_eq!(table, sources, "CONTRACTS against the `extern \"ptx-kernel\"` entries of kernels/src");
    for contract in &CONTRACTS {
        let text = doc_text(contract.file);
        assert!(!contract.quotes.is_empty(), "{}: no quote", contract.entry);
        for quote in contract.quotes {
            assert!(
                text.contains(&collapse(quote)),
                "{}: kernels/src/{} does not say {quote:?}",
                contract.entry,
                contract.file
            );
        }
    }
}

/// The numbers of a text, a space between groups of three digits read as a thousands
/// separator ("16 576").
fn numbers(text: &str) -> Vec<u32> {
    let mut numbers = Vec::new();
    let mut current = String::new();
    let chars: Vec<char> = text.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        let thousands = *c == ' '
            && !current.is_empty()
            && chars.get(i + 1..i + 4).is_some_and(|next| next.iter().all(char::is_ascii_digit))
            && chars.get(i + 4).is_none_or(|after| !after.is_ascii_digit());
        if c.is_ascii_digit() {
            current.push(*c);
        } else if !thousands && !current.is_empty() {
            numbers.push(current.parse().unwrap());
            current.clear();
        }
    }
    if !current.is_empty() {
        numbers.push(current.parse().unwrap());
    }
    numbers
}

#[test]
fn every_figure_of_a_contract_is_in_its_quotes() {
    assert_eq!(numbers("`4 * 4096 + 64 + 128 = 16 576` bytes, 2 to 16"), [4, 4096, 64, 128, 16576, 2, 16]);
    for contract in &CONTRACTS {
        let quoted = numbers(&contract.quotes.join(" "));
        for figure in contract.figures() {
            assert!(quoted.contains(&figure), "{}: {figure} is in no quote of its doc", contract.entry);
        }
    }
}

#[test]
fn a_quote_the_doc_does_not_hold_is_caught() {
    let text = doc_text("gemv.rs");
    assert!(text.contains(&collapse("dynamic shared memory 128 bytes (the block reduction's scratch)")));
    assert!(!text.contains(&collapse("dynamic shared memory 64 bytes (the block reduction's scratch)")));
}

#[test]
fn every_catalogue_launch_is_inside_its_entry_contract() {
    let mut checked = 0;
    for kernel in Kernel::ALL {
        for sms in [1, 78, 132, 144] {
            for case in every_case(kernel, sms) {
                if let Err(refusal) = check(case.entry(), &case) {
                    panic!("{} {} on {sms} SMs: {refusal}", case.label(), case.launch);
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 1000, "checked only {checked} launches");
}

#[test]
fn each_entry_out_of_contract_launch_is_refused_naming_the_entry() {
    for (kernel, entry) in entries() {
        let case = out_of_contract_case(kernel, entry, 132)
            .unwrap_or_else(|| panic!("{entry}: no out-of-contract case"));
        assert_eq!(case.entry(), entry, "the out-of-contract case launches another entry");
        let refusal = check(entry, &case).expect_err(&format!("{entry} {} was not refused", case.launch));
        let message = refusal.to_string();
        assert_eq!(refusal.entry, entry);
        assert!(message.starts_with(&format!("{entry} refused before the driver: grid ")), "{message}");
        for part in ["block ", "bytes of dynamic shared memory", "its contract requires", "; fix: "] {
            assert!(message.contains(part), "{entry}: {message}");
        }
        // Too little shared memory where the contract asks for some on the case's launch, else a
        // block shape it does not support.
        let needs_shared = contract::contract(entry).unwrap().shared.minimum(&case.launch).0 > 0;
        let what = if needs_shared { "bytes of dynamic shared memory" } else { "block" };
        assert!(refusal.requirement.contains(what), "{entry}: {}", refusal.requirement);
    }
}

/// The first catalogue case of `entry` (of `kernel`) with its launch changed by `change`.
fn changed(kernel: Kernel, entry: &str, change: impl Fn(&mut Launch)) -> Case {
    let mut case = correctness_cases(kernel, 132)
        .into_iter()
        .chain(decode_cases(kernel))
        .find(|case| case.entry() == entry)
        .unwrap_or_else(|| panic!("no case launches {entry}"));
    change(&mut case.launch);
    case
}

#[test]
fn gemv_f16_without_its_128_bytes_is_refused() {
    let refusal =
        check("gemv_f16", &changed(Kernel::GemvF16, "gemv_f16", |l| l.shared_bytes = 0)).unwrap_err();
    assert!(refusal.to_string().contains("at least 128 bytes of dynamic shared memory"), "{refusal}");
    assert!(refusal.to_string().contains("fix: launch with 128 bytes of dynamic shared memory"), "{refusal}");
    assert_eq!(refusal.source, Source::Doc("gemv.rs"));
    assert!(refusal.to_string().contains("(kernels/src/gemv.rs, gemv_f16's doc comment)"), "{refusal}");
    assert!(check("gemv_f16", &changed(Kernel::GemvF16, "gemv_f16", |l| l.shared_bytes = 127)).is_err());
    assert!(check("gemv_f16", &changed(Kernel::GemvF16, "gemv_f16", |l| l.shared_bytes = 128)).is_ok());
}

#[test]
fn the_catalogue_asks_for_the_minimum_one_byte_less_is_refused() {
    for (kernel, entry) in entries() {
        let minimum = contract::contract(entry).unwrap().shared;
        for case in every_case(kernel, 132).into_iter().filter(|case| case.entry() == entry) {
            let bytes = minimum.minimum(&case.launch).0;
            // The families' launches and the table (from the docs) are written apart: they agree
            // exactly, so a figure set too low in the table shows here.
            assert_eq!(
                case.launch.shared_bytes, bytes,
                "{entry} {}: the catalogue against the table",
                case.launch
            );
            let at = |shared_bytes| Case { launch: Launch { shared_bytes, ..case.launch }, ..case };
            assert!(check(entry, &at(bytes)).is_ok(), "{entry} {}", case.launch);
            if bytes > 0 {
                assert!(
                    check(entry, &at(bytes - 1)).is_err(),
                    "{entry} {} with {} bytes",
                    case.launch,
                    bytes - 1
                );
            }
        }
    }
}

#[test]
fn unsupported_block_shapes_are_refused() {
    let block =
        |entry: &'static str, kernel, block| check(entry, &changed(kernel, entry, |l| l.block = block));
    // rms_norm_held_weight's registers: at most 512 threads, where rms_norm takes 1024.
    let held = changed(Kernel::RmsNorm, "rms_norm_held_weight", |l| l.block = (1024, 1));
    let refusal = check("rms_norm_held_weight", &held).unwrap_err();
    assert!(refusal.requirement.contains("at most 512"), "{refusal}");
    assert!(refusal.to_string().contains("kernels/src/rms_norm.rs, rms_norm_held_weight's doc"), "{refusal}");
    assert!(check("rms_norm", &held).is_ok());
    assert!(block("block_reduce_sum", Kernel::BlockReduceSum, (96, 1)).is_err(), "not a power of two");
    assert!(block("gemv_f16", Kernel::GemvF16, (48, 1)).is_err(), "not a multiple of 32");
    assert!(block("gemv_f16_batched_1", Kernel::GemvF16Batched, (512, 1)).is_err(), "past 256");
    assert!(block("gemv_f16_batched_1", Kernel::GemvF16Batched, (256, 1)).is_ok());
    assert!(block("gemm_tiled", Kernel::GemmTiled, (256, 1)).is_err(), "16 × 16 only");
    assert!(block("pipeline_sum", Kernel::PipelineSum, (128, 1)).is_err(), "160 only");
    // Two-dimensional blocks where the doc says one-dimensional.
    assert!(block("shared_memory_helper_local", Kernel::SharedHelperLocal, (128, 2)).is_err());
    // Any block within the device's 1024 threads where the doc allows any.
    assert!(block("vector_add", Kernel::VectorAdd, (96, 3)).is_ok());
    let refusal = block("vector_add", Kernel::VectorAdd, (1025, 1)).unwrap_err();
    assert_eq!(refusal.source, Source::Device, "{refusal}");
}

#[test]
fn grids_and_clusters_outside_the_docs_are_refused() {
    let gemm = Case::new(
        Kernel::GemmTiled,
        Shape::Gemm { m: 100, n: 70, k: 300 },
        gpu_runner::cases::launch_for(Kernel::GemmTiled, Shape::Gemm { m: 100, n: 70, k: 300 }, 256, None),
    );
    assert!(check("gemm_tiled", &gemm).is_ok());
    let short = Case { launch: Launch { grid: (4, 6), ..gemm.launch }, ..gemm };
    assert!(check("gemm_tiled", &short).unwrap_err().fix.contains("gridDim = (5, 7)"));
    // A tile per block must cover n.
    let helper = changed(Kernel::SharedHelperLocal, "shared_memory_helper_local", |_| {});
    let Shape::Elements(n) = helper.shape else { unreachable!() };
    let uncovered = Case { shape: Shape::Elements(n + 1000), ..helper };
    assert!(check("shared_memory_helper_local", &uncovered).is_err());
    // Row kernels in clusters of up to 16, a grid of whole clusters.
    let rows = changed(Kernel::SoftmaxRows, "softmax_rows", |l| {
        (l.cluster, l.grid, l.shared_bytes) = (16, (16, 1), 384)
    });
    assert!(check("softmax_rows", &rows).is_ok());
    let refusal =
        check("softmax_rows", &Case { launch: Launch { cluster: 32, grid: (32, 1), ..rows.launch }, ..rows })
            .unwrap_err();
    assert_eq!(refusal.source, Source::Doc("softmax.rs"), "{refusal}");
    assert!(refusal.requirement.contains("at most 16"), "{refusal}");
    assert!(
        check("softmax_rows", &Case { launch: Launch { grid: (24, 1), ..rows.launch }, ..rows }).is_err()
    );
    // Too much shared memory for the device, and an entry without a contract.
    let huge = changed(Kernel::GemvF16, "gemv_f16", |l| l.shared_bytes = 300 * 1024);
    assert!(check("gemv_f16", &huge).is_err());
    let unknown = check("no_such_entry", &huge).unwrap_err();
    assert!(unknown.to_string().starts_with("no_such_entry refused before the driver"), "{unknown}");
}

#[test]
fn the_run_counts_refusals_through_context_and_fails_what_is_not_refused() {
    // The runner's path: the check, the refusal wrapped in the launch's context.
    let run = contract::launch_out_of_contract(&Kernel::ALL, 132, |case| {
        check(case.entry(), case).map_err(anyhow::Error::from).context("launching")?;
        Ok(())
    });
    assert_eq!(run.line(), "launch contracts: 29 entries, 29 out-of-contract launches refused");
    assert!(run.all_refused());
    assert!(run.launches.iter().all(|l| l.outcome.contains("refused before the driver")));
    // A path that launches without the check, or fails otherwise, refuses nothing.
    let launched = contract::launch_out_of_contract(&[Kernel::GemvF16], 132, |_| Ok(()));
    assert_eq!(launched.line(), "launch contracts: 1 entries, 0 out-of-contract launches refused");
    assert!(!launched.all_refused());
    let faulted = contract::launch_out_of_contract(&[Kernel::GemvF16], 132, |_| {
        anyhow::bail!("an illegal memory access")
    });
    assert!(!faulted.all_refused() && faulted.launches[0].outcome.contains("illegal memory access"));
    // A refusal naming another entry is not this entry's.
    let other = contract::launch_out_of_contract(&[Kernel::GemvF16], 132, |case| {
        Err(Refusal { entry: "rms_norm", ..check("gemv_f16", case).unwrap_err() }.into())
    });
    assert!(!other.all_refused());
}

#[test]
fn the_run_document_records_the_contracts() {
    let run = contract::launch_out_of_contract(&[Kernel::GemvF16, Kernel::RmsNorm], 132, |case| {
        Ok(check(case.entry(), case)?)
    });
    assert_eq!((run.entries, run.refused), (3, 3));
    let document = gpu_runner::report::RunDocument {
        run: gpu_runner::report::RunOn { device: "test".to_owned(), seed: 1 },
        multiprocessors: 132,
        copy_bytes_per_s: None,
        rows: vec![],
        verdicts: vec![],
        peers: vec![],
        gemm_sweep: None,
        launch_contracts: Some(run.clone()),
    };
    let json = serde_json::to_value(&document).unwrap();
    assert_eq!(json["launch_contracts"]["refused"], 3);
    assert_eq!(json["launch_contracts"]["launches"][0]["entry"], "gemv_f16");
    let back: gpu_runner::report::RunDocument = serde_json::from_value(json).unwrap();
    assert_eq!(back.launch_contracts, Some(run));
}

#[test]
fn the_shared_rules_count_as_the_docs_do() {
    let launch = |block: u32, cluster: u32| Launch {
        grid: (cluster, 1),
        block: (block, 1),
        shared_bytes: 0,
        cluster,
        column_split: false,
    };
    assert_eq!(Shared::PerThread(4).minimum(&launch(256, 1)).0, 1024);
    assert_eq!(Shared::ClusterBytes { plain: 128, clustered: 384 }.minimum(&launch(256, 1)).0, 128);
    assert_eq!(Shared::ClusterBytes { plain: 128, clustered: 384 }.minimum(&launch(256, 4)).0, 384);
    assert_eq!(Shared::WarpPartials { width: 2 }.minimum(&launch(128, 1)).0, 4 * 4 * 8 * 2);
    assert_eq!(Shared::WarpPartials { width: 4 }.minimum(&launch(32, 1)).0, 0, "none for one warp");
    assert_eq!(Shared::Unstated.minimum(&launch(1024, 1)).0, 0);
}

/// The largest block a contract allows, in threads.
fn largest_block(block: contract::Block) -> u32 {
    match block {
        contract::Block::Any | contract::Block::OneDimensional => contract::MAX_BLOCK_THREADS,
        contract::Block::PowerOfTwo { max } | contract::Block::MultipleOf { max, .. } => max,
        contract::Block::Exactly(x, y) => x * y,
    }
}

/// What a kernel source declares about its block besides an exact size.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Declared {
    /// `block_threads_at_most(N)`: any size up to `N`.
    AtMost(u32),
    /// `block_threads_power_of_two(N)`: the powers of two up to `N`, each judged on its own.
    PowerOfTwo(u32),
}

/// The entries of `source` (a file of `kernels/src`) that run a function declaring
/// `block_threads_at_most(N)` or `block_threads_power_of_two(N)` (the entry itself, or a helper
/// its body calls by name), with the declaration; the verifier's race check enumerates only the
/// declared blocks for them.
fn declared_bounds(source: &str) -> Vec<(String, Declared)> {
    // Each function's name and body: the text from its `fn` to the next item's.
    let mut functions: Vec<(String, &str)> = Vec::new();
    let starts: Vec<usize> = source.match_indices("fn ").map(|(at, _)| at).collect();
    for (i, at) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(source.len());
        let name = source[at + 3..].split(['(', '<']).next().unwrap_or("").trim().to_owned();
        functions.push((name, &source[*at..end]));
    }
    let argument = |body: &str, call: &str| {
        let rest = body.split(call).nth(1)?;
        rest.split(')').next()?.trim().parse::<u32>().ok()
    };
    let declared_in = |body: &str| {
        argument(body, "block_threads_at_most(")
            .map(Declared::AtMost)
            .or_else(|| argument(body, "block_threads_power_of_two(").map(Declared::PowerOfTwo))
    };
    let bounded: Vec<(&str, Declared)> =
        functions.iter().filter_map(|(name, body)| Some((name.as_str(), declared_in(body)?))).collect();
    let mut entries = Vec::new();
    for (name, body) in &functions {
        if !body.starts_with(&format!("fn {name}("))
            || !source.contains(&format!("extern \"ptx-kernel\" fn {name}("))
        {
            continue;
        }
        let runs =
            |helper: &str| body.contains(&format!("{helper}(")) || body.contains(&format!("{helper}::<"));
        if let Some(declared) =
            bounded.iter().find(|(helper, _)| helper == name || runs(helper)).map(|(_, declared)| *declared)
        {
            entries.push((name.clone(), declared));
        }
    }
    entries
}

/// The entries whose contract lets a launch take a block their source does not declare (larger
/// than its bound, or not a power of two where it declares powers of two): launches the
/// verifier's proof does not cover.
fn contracts_past_declared_bounds(file: &str, source: &str) -> Vec<String> {
    declared_bounds(source)
        .into_iter()
        .filter_map(|(entry, declared)| {
            let contract = CONTRACTS.iter().find(|c| c.entry == entry && c.file == file)?;
            let largest = largest_block(contract.block);
            let bound = match declared {
                Declared::AtMost(bound) | Declared::PowerOfTwo(bound) => bound,
            };
            let powers_only = match contract.block {
                contract::Block::PowerOfTwo { .. } => true,
                contract::Block::Exactly(x, 1) => x.is_power_of_two(),
                _ => false,
            };
            if largest > bound {
                Some(format!("{entry}: the contract allows {largest} threads, the source declares at most {bound}"))
            } else if matches!(declared, Declared::PowerOfTwo(_)) && !powers_only {
                Some(format!("{entry}: the contract allows blocks that are not powers of two, the source declares only those"))
            } else {
                None
            }
        })
        .collect()
}

#[test]
fn no_contract_allows_a_block_past_the_bound_its_source_declares() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../src");
    let mut bounded = 0;
    for contract in CONTRACTS {
        let source = std::fs::read_to_string(folder.join(contract.file)).unwrap();
        bounded += declared_bounds(&source).iter().filter(|(entry, _)| entry == contract.entry).count();
        assert_eq!(contracts_past_declared_bounds(contract.file, &source), Vec::<String>::new());
    }
    // The batched GEMVs declare theirs (every width, split or not), and the block reduction.
    assert!(bounded >= 9, "only {bounded} entries declare a bound");
}

#[test]
fn a_contract_past_its_declared_powers_of_two_is_caught() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../src/reduction.rs");
    let source = std::fs::read_to_string(&path).unwrap();
    assert!(source.contains("block_threads_power_of_two(1024)"));
    let tightened = source.replace("block_threads_power_of_two(1024)", "block_threads_power_of_two(512)");
    let breaches = contracts_past_declared_bounds("reduction.rs", &tightened);
    assert!(breaches.iter().any(|b| b.starts_with("block_reduce_sum:")), "{breaches:?}");
    // The batched GEMVs take any multiple of 32: declaring only powers of two would leave
    // launches the proof does not cover.
    let gemv = std::fs::read_to_string(path.with_file_name("gemv.rs")).unwrap();
    let powers = gemv.replace("block_threads_at_most(256)", "block_threads_power_of_two(256)");
    let breaches = contracts_past_declared_bounds("gemv.rs", &powers);
    assert!(breaches.iter().any(|b| b.contains("not powers of two")), "{breaches:?}");
}

#[test]
fn a_contract_past_its_declared_bound_is_caught() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../src/gemv.rs");
    let source = std::fs::read_to_string(&path).unwrap();
    assert!(source.contains("block_threads_at_most(256)"));
    let tightened = source.replace("block_threads_at_most(256)", "block_threads_at_most(128)");
    let breaches = contracts_past_declared_bounds("gemv.rs", &tightened);
    assert!(breaches.iter().any(|b| b.starts_with("gemv_f16_batched_8:")), "{breaches:?}");
}
