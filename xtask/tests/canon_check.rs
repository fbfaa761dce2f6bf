//! canon-check on real builds of the kernels, and the shapes guard on a real changed build.
//!
//! Three builds: the repository's kernels as they are (opt-level 3, `kernels/target`), the same
//! sources at opt-level 2, and a scratch copy at opt-level 3 where
//! - `saxpy` takes its input as `&u8` (cast back to `*const f32`): a shared reference is
//!   `noalias readonly`, so LLVM proves the loads read-only and emits `ld.global.nc`, and
//!   nothing else changes (the reference's alignment is 1, like a raw pointer's); saxpy writes
//!   y, another parameter, so the class is `.nc` only *if the parameters do not overlap*;
//! - `vector_add` takes its inputs as `&[f32]` slices: passed by value as aggregates, which
//!   changes the parameters and turns its global loads generic (class "other").
//!
//! Opt-level 2 and 3 give the same code here, with other crate hashes in the helpers' mangled
//! names: every entry must come out identical. Classes no real pair of these builds shows
//! (renumbering, order within blocks, state space) are made from the real build by editing
//! one entry each in its PTX text; the test says which entry came from where.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use regress::canon::Class;
use regress::layout::Layout;
use regress::ptx::program::Program;
use regress::shapes::{Finding, Shape, ShapeTable};
use xtask::kernels::KernelBuild;

use common::{copy_tree, replace_once};

fn scratch_dir(layout: &Layout, name: &str) -> PathBuf {
    layout.root().join("target").join("xtask-scratch").join(name)
}

fn edit(file: &Path, from: &str, to: &str) {
    replace_once(file, from, to, &format!("`{from}` must match once in {}: update the test", file.display()));
}

/// Builds `build` with `opt_level`, returning the PTX path.
fn build_at(build: &KernelBuild, opt_level: &str) -> PathBuf {
    let status = build.command().env("CARGO_PROFILE_RELEASE_OPT_LEVEL", opt_level).status().unwrap();
    assert!(status.success(), "building {} at opt-level {opt_level}", build.workspace.display());
    build.ptx()
}

/// Applies `change` to the text of one entry of a PTX module.
fn edit_entry(ptx: &str, entry: &str, change: impl Fn(&str) -> String) -> String {
    let start = ptx.find(&format!(".entry {entry}(")).unwrap_or_else(|| panic!("{entry} is in the PTX"));
    // The function's own end: an inline-asm scope inside it also closes with `}` at column 0.
    let end = start + ptx[start..].find("// -- End function\n}\n").unwrap();
    let changed = change(&ptx[start..end]);
    assert_ne!(changed, ptx[start..end], "the edit of {entry} changes it");
    format!("{}{changed}{}", &ptx[..start], &ptx[end..])
}

#[test]
fn canon_check_classifies_real_builds_and_the_shapes_guard_names_the_moved_kernel() {
    let layout = Layout::from_build();
    let repository =
        KernelBuild::of_repository(&layout).unwrap().run().expect("the repository's kernels build");

    // Opt-level 2: the repository's own sources, into a target folder of this test.
    let o2 =
        KernelBuild::guarded(&layout, layout.kernels_workspace(), scratch_dir(&layout, "canon-o2-target"))
            .expect("the guard accepts the backend");
    let o2_ptx = build_at(&o2, "2");
    assert_ne!(fs::read(&repository).unwrap(), fs::read(&o2_ptx).unwrap(), "the two builds differ as files");
    let report = xtask::canon_check::compare(&layout, &repository, &o2_ptx).unwrap();
    let entries = report.entries.len();
    assert!(entries >= 10, "{}", report.render_text());
    // The wgmma GEMM's k-loop is unrolled at opt-level 3 and not at 2, and the split batched
    // GEMV's loop over the warps' partial sums eight times at 3 and four at 2: real changes of
    // code, which canon-check must name as such (`other`), never as a harmless class, in each
    // of the wgmma GEMM's four epilogue entries (`gemm_bf16_wgmma`, `_bias`, `_bf16`,
    // `_bias_bf16`) and the three `gemv_f16_batched_*_split` entries. So does the decode GEMM
    // (`gemm_bf16_decode_bf16`): its chunk loads and the moves around them are scheduled in
    // another order at 2. Every other entry compiles alike at both levels.
    for entry in &report.entries {
        let unrolled_differently = entry.entry.starts_with("gemm_bf16_wgmma")
            || entry.entry.ends_with("_split")
            || entry.entry == "gemm_bf16_decode_bf16";
        let expected = if unrolled_differently { Class::Other } else { Class::Identical };
        assert_eq!(entry.class, expected, "opt-level 3 vs 2, {}:\n{}", entry.entry, report.render_text());
    }
    assert!(report.entries.iter().any(|entry| entry.entry == "gemm_bf16_wgmma"), "{}", report.render_text());

    // The read-only copy.
    let copy = scratch_dir(&layout, "canon-readonly");
    let _ = fs::remove_dir_all(&copy);
    copy_tree(&layout.kernels_workspace(), &copy, false);
    let elementwise = copy.join("src/elementwise.rs");
    edit(
        &elementwise,
        "fn saxpy(alpha: f32, x: *const f32, y: *mut f32, n: usize) {",
        "fn saxpy(alpha: f32, x: &u8, y: *mut f32, n: usize) {\n    let x = core::ptr::from_ref(x).cast::<f32>();",
    );
    edit(
        &elementwise,
        "fn vector_add(a: *const f32, b: *const f32, out: *mut f32, n: usize) {",
        "fn vector_add(a: &[f32], b: &[f32], out: *mut f32, n: usize) {",
    );
    edit(
        &elementwise,
        "|i| unsafe { (*a.add(i), *b.add(i)) },",
        "|i| unsafe { (*a.get_unchecked(i), *b.get_unchecked(i)) },",
    );
    let readonly = KernelBuild::guarded(&layout, copy.clone(), scratch_dir(&layout, "canon-readonly-target"))
        .expect("the guard accepts the backend");
    let readonly_ptx = build_at(&readonly, "3");
    let readonly_text = fs::read_to_string(&readonly_ptx).unwrap();

    // The shapes guard on the real changed build: exactly vector_add moved, by name.
    let table = ShapeTable::parse(&fs::read_to_string(layout.shapes_table()).unwrap()).unwrap();
    let findings = table.check(&Shape::all(&Program::read(&readonly_text).unwrap()));
    assert_eq!(findings.iter().map(Finding::kernel).collect::<Vec<_>>(), ["vector_add"], "{findings:?}");
    assert!(findings[0].to_string().starts_with("kernel `vector_add` moved from its pin"), "{}", findings[0]);

    // NEW: the read-only build (real: saxpy .nc, vector_add other) with three more entries
    // edited in its text (synthetic, one class each), as a folder.
    let mut new_text = readonly_text.clone();
    new_text = edit_entry(&new_text, "block_reduce_sum", |text| {
        let number = regex::Regex::new(r"%r(\d+)").unwrap();
        number
            .replace_all(text, |c: &regex::Captures| format!("%r{}", c[1].parse::<u32>().unwrap() + 50))
            .into_owned()
    });
    new_text = edit_entry(&new_text, "silu_mul", |text| {
        let mut lines: Vec<&str> = text.lines().collect();
        let first = (0..lines.len() - 1)
            .find(|&i| lines[i].contains("mov.u32") && lines[i + 1].contains("mov.u32"))
            .unwrap();
        lines.swap(first, first + 1);
        lines.join("\n")
    });
    // The warp sums' scratch, reached through `cvta.shared` of the shared symbol, accessed as
    // `.shared` through the symbol's own address instead: the same memory.
    new_text = edit_entry(&new_text, "pipeline_sum", |text| {
        text.replacen("cvta.shared.u64 %rd15, DYNAMIC_SHARED;", "mov.u64 %rd15, DYNAMIC_SHARED;", 1)
            .replacen("st.b32 \t[%rd5+16448]", "st.shared.b32 \t[%rd5+16448]", 1)
            .replacen("ld.b32 \t%r98, [%rd6+16448]", "ld.shared.b32 \t%r98, [%rd6+16448]", 1)
    });
    let new_dir = scratch_dir(&layout, "canon-new");
    let _ = fs::remove_dir_all(&new_dir);
    fs::create_dir_all(new_dir.join("nested")).unwrap();
    fs::write(new_dir.join("nested").join("kernels.ptx"), &new_text).unwrap();

    let report = xtask::canon_check::compare(&layout, &repository, &new_dir).unwrap();
    let text = report.render_text();
    let class_of = |entry: &str| report.entries.iter().find(|e| e.entry == entry).map(|e| e.class);
    // x is only read, y written: harmless unless the launch passes overlapping buffers.
    assert_eq!(class_of("saxpy"), Some(Class::NonCoherentLoadsIfParametersDistinct), "real:\n{text}");
    assert_eq!(class_of("vector_add"), Some(Class::Other), "real:\n{text}");
    assert_eq!(class_of("block_reduce_sum"), Some(Class::RegisterRenumbering), "synthetic:\n{text}");
    assert_eq!(class_of("silu_mul"), Some(Class::OrderWithinBlocks), "synthetic:\n{text}");
    assert_eq!(class_of("pipeline_sum"), Some(Class::StateSpace), "synthetic:\n{text}");
    let counts: Vec<usize> = report.counts().into_iter().map(|(_, n)| n).collect();
    assert_eq!(counts, [entries - 5, 1, 0, 1, 1, 1, 1], "{text}");
    assert!(text.contains("\nother: vector_add\n"), "{text}");

    // The result survives the JSON the report reads.
    let saved = scratch_dir(&layout, "canon-last.json");
    xtask::canon_check::save(&report, &saved).unwrap();
    assert_eq!(xtask::canon_check::load(&saved).unwrap(), report);
}
