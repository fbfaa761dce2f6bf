use super::*;

const PTX: &str = r#".version 8.6
.target sm_90
.address_size 64
.extern .shared .align 16 .b8 DYNAMIC_SHARED[];
.func  (.param .b32 func_retval0) helper(
	.param .b64 helper_param_0
)
{
	.local .align 4 .b8 	__local_depot1[8];
	.reg .b32 	%r<3>;
	.reg .b64 	%rd<3>;
	ld.param.b64 	%rd1, [helper_param_0];
	ld.b32 	%r1, [%rd1];
	st.local.b32 	[%rd2], %r1;
	ld.local.b32 	%r2, [%rd2];
	st.param.b32 	[func_retval0], %r2;
	ret;
}
.visible .entry k(
	.param .u64 .ptr .align 1 k_param_0
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<4>;
	ld.param::entry.b64 	%rd1, [k_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	ld.global.nc.b32 	%r1, [%rd2];
	st.shared.b32 	[%r1], %r1;
	bar.sync 	0;
	mbarrier.arrive.shared::cta.b64 _, [%r2];
	cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd2], %r3, [%r2];
	shfl.sync.bfly.b32 %r3, %r1, 1, 0x1f, -1;
	setp.ne.b32 	%p1, %r1, 0;
	@%p1 bra 	$L__BB0_2;
	{ // callseq 0, 0
	.param .b64 param0;
	st.param.b64 	[param0], %rd2;
	.param .b32 retval0;
	call.uni (retval0), helper, (param0);
	}
$L__BB0_2:
	griddepcontrol.wait;
	ret;
}
.visible .entry lone()
{
	ret;
}
"#;

fn shapes() -> Vec<Shape> {
    Shape::all(&Program::read(PTX).unwrap())
}

#[test]
fn a_shape_counts_the_entry_and_the_functions_it_calls() {
    let shapes = shapes();
    let k = &shapes[0];
    assert_eq!(k.kernel, "k");
    let expected: &[(&str, u64)] = &[
        ("reg_pred", 2),
        ("reg_32", 4 + 3),
        ("reg_64", 4 + 3),
        ("local_bytes", 8),
        ("local_ld", 1),
        ("local_st", 1),
        ("mem_global", 1),
        ("mem_shared", 1),
        ("mem_generic", 1),
        ("mem_local", 2),
        ("mem_param", 2 + 2),
        ("arith", 2),
        ("control", 4),
        ("barrier", 1),
        ("async_copy", 1),
        ("mbarrier", 1),
        ("warp", 1),
        ("other", 1),
        ("calls", 1),
    ];
    for (column, value) in expected {
        assert_eq!(k.values[column], *value, "column {column}");
    }
    assert_eq!(k.values["reg_16"] + k.values["reg_128"], 0);
    assert_eq!(shapes[1].values.values().sum::<u64>(), 1, "`lone` is one `ret`");
}

fn pin(reason: &str) -> Pin {
    Pin { date: "2026-11-29".into(), reason: reason.into() }
}

#[test]
fn a_table_round_trips_and_keeps_columns_it_does_not_compute() {
    let table = ShapeTable::empty().update(&shapes(), &pin("first pin"));
    let mut text = table.render();
    assert!(text.contains("\tPIN(2026-11-29): first pin\n"));
    assert_eq!(ShapeTable::parse(&text).unwrap(), table);

    // Another tool adds a column: it survives an update of a moved row.
    text = text.replace("\tcalls\tpin", "\tcalls\tptxas_regs\tpin").replace("\tPIN(", "\t28\tPIN(");
    let widened = ShapeTable::parse(&text).unwrap();
    assert_eq!(widened.row("k").unwrap().values["ptxas_regs"], "28");
    let mut moved = shapes();
    *moved[0].values.get_mut("reg_32").unwrap() += 1;
    let updated = widened.update(&moved, &pin("more registers"));
    assert_eq!(updated.row("k").unwrap().values["ptxas_regs"], "28");
    assert_eq!(updated.row("k").unwrap().values["reg_32"], "8");
    assert_eq!(updated.row("k").unwrap().pin.reason, "more registers");
    assert_eq!(updated.row("lone").unwrap().pin.reason, "first pin", "an unmoved row keeps its pin");
    assert!(updated.check(&moved).is_empty());
}

#[test]
fn the_check_names_the_kernel_the_columns_and_both_values() {
    let table = ShapeTable::empty().update(&shapes(), &pin("first pin"));
    assert!(table.check(&shapes()).is_empty());

    let mut moved = shapes();
    *moved[0].values.get_mut("reg_32").unwrap() = 9;
    *moved[0].values.get_mut("local_bytes").unwrap() = 24;
    let findings = table.check(&moved);
    assert_eq!(findings.len(), 1);
    assert_eq!(
        findings[0].to_string(),
        "kernel `k` moved from its pin (PIN(2026-11-29): first pin): reg_32 7 -> 9, local_bytes 8 -> 24"
    );

    let mut renamed = shapes();
    renamed[1].kernel = "lonely".into();
    let findings: Vec<String> = table.check(&renamed).iter().map(ToString::to_string).collect();
    assert_eq!(
        findings,
        ["kernel `lonely` has no row", "the row of kernel `lone` belongs to no kernel entry in the PTX"]
    );
}

#[test]
fn malformed_tables_name_the_line() {
    let good = ShapeTable::empty().update(&shapes(), &pin("first pin")).render();
    let unpinned = good.replace("PIN(2026-11-29): first pin", "first pin");
    let error = ShapeTable::parse(&unpinned).unwrap_err();
    assert_eq!(error.line, 6, "{error}");
    assert!(error.to_string().contains("PIN(YYYY-MM-DD): reason"), "{error}");
    assert!(ShapeTable::parse(&good.replace("PIN(2026-11-29)", "PIN(29.11.2026)")).is_err());
    assert!(ShapeTable::parse(&good.replace("\t0\t", "\t")).unwrap_err().message.contains("fields"));
    assert!(ShapeTable::parse(&good.replace("\treg_16", "")).unwrap_err().message.contains("reg_16"));
    assert!(ShapeTable::parse("# nothing\n").is_err());
}

#[test]
fn civil_dates_match_the_calendar() {
    assert_eq!(civil_date(0), "1970-01-01");
    assert_eq!(civil_date(11_016), "2000-02-29");
    assert_eq!(civil_date(11_017), "2000-03-01");
    assert_eq!(civil_date(20_786), "2026-11-29");
    assert_eq!(civil_date(19_722), "2023-12-31");
    assert_eq!(today().len(), 10);
}

#[test]
fn the_check_fires_on_real_ptx_whose_registers_or_local_bytes_move() {
    let snapshots = crate::ptx::tests::committed_snapshot_ptx();
    let (_, saxpy) = snapshots.iter().find(|(entry, _)| entry == "saxpy").unwrap();
    let pinned = Shape::all(&Program::read(saxpy).unwrap());
    let table = ShapeTable::empty().update(&pinned, &pin("first pin"));
    assert!(table.check(&pinned).is_empty());

    let regs = pinned[0].values["reg_32"];
    let declaration = format!(".reg .b32 \t%r<{regs}>;");
    assert_eq!(saxpy.matches(&declaration).count(), 1, "saxpy declares `{declaration}`");
    let moved = saxpy.replace(
        &declaration,
        &format!(".local .align 4 .b8 \t__local_depot0[16];\n\t.reg .b32 \t%r<{}>;", regs + 3),
    );
    let findings: Vec<String> =
        table.check(&Shape::all(&Program::read(&moved).unwrap())).iter().map(ToString::to_string).collect();
    assert_eq!(
        findings,
        [format!(
            "kernel `saxpy` moved from its pin (PIN(2026-11-29): first pin): reg_32 {regs} -> {}, local_bytes 0 -> 16",
            regs + 3
        )]
    );
}

#[test]
fn cuda_oxides_ptx_is_counted_in_its_families() {
    // cuda-oxide's PTX (LLVM 22) spells the same operations otherwise than rustc's: `ld.shared`
    // on a symbol, `st.shared::cluster` and `mbarrier.try_wait` inside inline-asm scopes,
    // `mbarrier.init` on `symbol+offset`. Counted from the committed snapshots' text, apart
    // from the classifier, every family gets its instructions and `other` only what is neither
    // memory, barrier, warp nor arithmetic (`mapa`, `griddepcontrol`).
    let dir = crate::layout::Layout::from_build().oxide_snapshot_dir();
    let snapshots = crate::ptx::tests::committed_snapshot_ptx_in(&dir);
    assert!(snapshots.len() >= 6, "the cuda-oxide kernels' snapshots in {}", dir.display());
    let count = |text: &str, pattern: &str| -> u64 {
        let pattern = regex::Regex::new(pattern).unwrap();
        text.lines().map(|line| pattern.find_iter(line.split("//").next().unwrap_or("")).count() as u64).sum()
    };
    let expected: &[(&str, &str)] = &[
        ("mem_shared", r"\b(ld|st)\.shared"),
        ("mem_global", r"\b(ld|st)\.global"),
        ("mem_param", r"\b(ld|st)\.param"),
        ("mbarrier", r"\bmbarrier\.[a-z]"),
        ("async_copy", r"\bcp\.async\.bulk"),
        ("barrier", r"\b(bar\.sync|barrier\.cluster|fence\.proxy)"),
        ("warp", r"\bshfl\.sync"),
        ("other", r"\b(mapa|griddepcontrol)\."),
        ("mem_generic", r"\b(ld|st)\.[bfsu][0-9]"),
    ];
    let mut totals: BTreeMap<&str, u64> = BTreeMap::new();
    for (entry, text) in &snapshots {
        let program = Program::read(text).unwrap_or_else(|e| panic!("{entry}: {e}"));
        let shape = Shape::of(&program, program.function(entry).unwrap());
        for (column, pattern) in expected {
            assert_eq!(shape.values[column], count(text, pattern), "{entry}: column {column}");
            *totals.entry(column).or_default() += shape.values[column];
        }
    }
    for column in ["mem_shared", "mem_global", "mbarrier", "async_copy", "barrier", "warp", "other"] {
        assert!(totals[column] > 0, "the snapshots exercise {column}: {totals:?}");
    }
}
