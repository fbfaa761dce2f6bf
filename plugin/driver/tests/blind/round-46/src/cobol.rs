//! Module `cobol`: the kernels written the way a COBOL programmer lays out a batch program.
//! The kernel's parameters are a `LINKAGE SECTION` record, the block's control fields a
//! `WORKING-STORAGE` record (`#[repr(C)]`, `ws_` names, level numbers in the comments), the
//! shared window a record layout with fixed offsets and `FILLER`s, the work split into
//! numbered paragraphs (`p000_…`, `p100_…`) that the main line `PERFORM`s, and every loop a
//! `PERFORM VARYING … UNTIL …` written as `loop { if <until> { break } … }`. Tables are
//! thought of as `OCCURS` with 1-based subscripts.

use crate::device;
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};

// 01  WS-CONSTANTS.
const WS_STAGE_COUNT: u32 = 4; //          05 WS-STAGE-COUNT      PIC 9     VALUE 4.
const WS_RECORD_BYTES: u32 = 1024; //      05 WS-RECORD-BYTES     PIC 9(4)  VALUE 1024.
const WS_RECORD_WORDS: u32 = 256; //       05 WS-RECORD-WORDS     PIC 9(3)  VALUE 256.
const WS_LINE_COUNT: u32 = 8; //           05 WS-LINE-COUNT       PIC 9     VALUE 8.
const WS_COLUMN_COUNT: u32 = 32; //        05 WS-COLUMN-COUNT     PIC 99    VALUE 32.
const WS_THREAD_COUNT: u32 = 64; //        05 WS-THREAD-COUNT     PIC 99    VALUE 64.
const WS_READER_THREAD: u32 = 32; //       05 WS-READER-THREAD    PIC 99    VALUE 32.
const WS_SHARED_BYTES: u32 = 8192; //      05 WS-SHARED-BYTES     PIC 9(4)  VALUE 8192.

// 01  SHARED-AREA.                        (the dynamic shared window)
const SA_BARRIERS: u32 = 0; //             05 SA-BARRIERS  OCCURS 8 TIMES PIC X(8).
//                                         05 FILLER                      PIC X(960).
const SA_RING: u32 = 1024; //              05 SA-RING      OCCURS 4 TIMES PIC X(1024).
const SA_SUBTOTAL_LINE: u32 = 1024; //     05 SA-SUBTOTAL-LINE REDEFINES SA-RING (plain kernels).

/// LINKAGE SECTION.
#[repr(C)]
#[derive(Clone, Copy)]
struct LinkageSection {
    ls_input: *const f32,
    ls_tiles: u32,
    ls_out: *mut f32,
}

/// WORKING-STORAGE SECTION: the control fields of this run.
#[repr(C)]
#[derive(Clone, Copy)]
struct WsControl {
    ws_thread: u32,
    ws_block: u32,
    ws_blocks: u32,
    ws_window: u32,
    ws_area: *mut f32,
}

/// P000-ACCEPT-ENVIRONMENT.
#[inline(always)]
fn p000_accept_environment() -> WsControl {
    WsControl {
        ws_thread: device::thread_idx_x(),
        ws_block: device::block_idx_x(),
        ws_blocks: device::grid_dim_x(),
        ws_window: device::dynamic_shared_window_address(),
        ws_area: device::dynamic_shared_base::<f32>(),
    }
}

/// P100-OPEN-FILES: thread 0 opens (initialises) the barriers at `barriers`, everyone waits.
#[inline(always)]
fn p100_open_files(ws: &WsControl, barriers: u32) -> Pipeline<WS_STAGE_COUNT> {
    if ws.ws_thread == 0 {
        Pipeline::<WS_STAGE_COUNT>::init(ws.ws_window + barriers, WS_COLUMN_COUNT);
    }
    device::barrier();
    Pipeline::<WS_STAGE_COUNT>::attach(ws.ws_window + barriers)
}

/// P200-READ-INPUT-FILE: PERFORM VARYING WS-TILE FROM WS-BLOCK BY WS-BLOCKS UNTIL
/// WS-TILE >= LS-TILES, each record read into the slot of the ring the state points at.
#[inline(always)]
fn p200_read_input_file(ls: &LinkageSection, ws: &WsControl, file: &Pipeline<WS_STAGE_COUNT>) {
    let mut ws_state = PipelineState::<WS_STAGE_COUNT>::producer_start();
    let mut ws_tile = ws.ws_block;
    loop {
        if ws_tile >= ls.ls_tiles {
            break;
        }
        file.producer_acquire(&ws_state);
        file.producer_expect_tx(&ws_state, WS_RECORD_BYTES);
        let ws_slot_address = ws.ws_window + SA_RING + ws_state.index() * WS_RECORD_BYTES;
        let ws_record = ls.ls_input.wrapping_add((ws_tile * WS_RECORD_WORDS) as usize) as *const u8;
        bulk_copy_global_to_shared(ws_slot_address, ws_record, WS_RECORD_BYTES, file.producer_barrier(&ws_state));
        ws_state.advance();
        ws_tile = ws_tile + ws.ws_blocks;
    }
    file.producer_tail(ws_state);
}

/// P310-ADD-COLUMN: ADD the eight lines of column WS-COLUMN of one record TO WS-TOTAL.
#[inline(always)]
unsafe fn p310_add_column(ws_record: *const f32, ws_column: u32) -> f32 {
    let mut ws_total = 0.0;
    let mut ws_line = 0;
    loop {
        if ws_line >= WS_LINE_COUNT {
            break;
        }
        ws_total = ws_total + *ws_record.add((ws_line * WS_COLUMN_COUNT + ws_column) as usize);
        ws_line = ws_line + 1;
    }
    ws_total
}

/// P300-SUMMARISE-RECORDS: the same PERFORM VARYING on the reporting side.
#[inline(always)]
unsafe fn p300_summarise_records(ls: &LinkageSection, ws: &WsControl, file: &Pipeline<WS_STAGE_COUNT>) -> f32 {
    let mut ws_state = PipelineState::<WS_STAGE_COUNT>::new();
    let mut ws_grand_total = 0.0;
    let mut ws_tile = ws.ws_block;
    loop {
        if ws_tile >= ls.ls_tiles {
            break;
        }
        file.consumer_wait(&ws_state);
        let ws_record = ws.ws_area.add((SA_RING / 4 + ws_state.index() * WS_RECORD_WORDS) as usize);
        ws_grand_total = ws_grand_total + p310_add_column(ws_record, ws.ws_thread);
        file.consumer_release(&ws_state);
        ws_state.advance();
        ws_tile = ws_tile + ws.ws_blocks;
    }
    ws_grand_total
}

/// P900-WRITE-REPORT: MOVE WS-GRAND-TOTAL TO REPORT-LINE(WS-BLOCK, WS-COLUMN).
#[inline(always)]
unsafe fn p900_write_report(ls: &LinkageSection, ws: &WsControl, ws_grand_total: f32) {
    *ls.ls_out.add((ws.ws_block * WS_COLUMN_COUNT + ws.ws_thread % WS_COLUMN_COUNT) as usize) = ws_grand_total;
}

/// P250-MOVE-RECORD (plain kernels): every thread MOVEs its four words of the record to the
/// work area at SA offset 0.
#[inline(always)]
unsafe fn p250_move_record(ls: &LinkageSection, ws: &WsControl, ws_tile: u32) {
    let mut ws_part = 0;
    loop {
        if ws_part >= WS_RECORD_WORDS / WS_THREAD_COUNT {
            break;
        }
        let ws_word = ws.ws_thread + ws_part * WS_THREAD_COUNT;
        *ws.ws_area.add(ws_word as usize) = *ls.ls_input.add((ws_tile * WS_RECORD_WORDS + ws_word) as usize);
        ws_part = ws_part + 1;
    }
}

/// The main line: OPEN, the reader thread PERFORMs P200, warp 0 PERFORMs P300 and P900.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_cobol_batch_report(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(WS_THREAD_COUNT);
    dynamic_shared_bytes(WS_SHARED_BYTES);
    let ls = LinkageSection { ls_input: input, ls_tiles: tiles, ls_out: out };
    let ws = p000_accept_environment();
    let file = p100_open_files(&ws, SA_BARRIERS);
    if ws.ws_thread == WS_READER_THREAD {
        p200_read_input_file(&ls, &ws, &file);
    } else if ws.ws_thread < WS_COLUMN_COUNT {
        let ws_grand_total = p300_summarise_records(&ls, &ws, &file);
        p900_write_report(&ls, &ws, ws_grand_total);
    }
}

/// A second layout: the ring at the start of the area and the barriers as a trailer record
/// after it (SA-TRAILER at byte 4096), and both sides PERFORM UNTIL WS-REMAINING = 0, a
/// count of this block's records computed once and counted down.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_cobol_trailer_countdown(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(WS_THREAD_COUNT);
    dynamic_shared_bytes(WS_SHARED_BYTES);
    const SA_RING_FIRST: u32 = 0; //      05 SA-RING OCCURS 4 TIMES PIC X(1024).
    const SA_TRAILER: u32 = 4096; //      05 SA-TRAILER (the barriers).
    let ls = LinkageSection { ls_input: input, ls_tiles: tiles, ls_out: out };
    let ws = p000_accept_environment();
    let file = p100_open_files(&ws, SA_TRAILER);
    let ws_records = if ws.ws_block < ls.ls_tiles {
        (ls.ls_tiles - ws.ws_block + ws.ws_blocks - 1) / ws.ws_blocks
    } else {
        0
    };
    if ws.ws_thread == WS_READER_THREAD {
        let mut ws_state = PipelineState::<WS_STAGE_COUNT>::producer_start();
        let mut ws_tile = ws.ws_block;
        let mut ws_remaining = ws_records;
        while ws_remaining > 0 {
            file.producer_acquire(&ws_state);
            file.producer_expect_tx(&ws_state, WS_RECORD_BYTES);
            let ws_slot_address = ws.ws_window + SA_RING_FIRST + ws_state.index() * WS_RECORD_BYTES;
            let ws_record = ls.ls_input.wrapping_add((ws_tile * WS_RECORD_WORDS) as usize) as *const u8;
            bulk_copy_global_to_shared(ws_slot_address, ws_record, WS_RECORD_BYTES, file.producer_barrier(&ws_state));
            ws_state.advance();
            ws_tile = ws_tile + ws.ws_blocks;
            ws_remaining = ws_remaining - 1;
        }
        file.producer_tail(ws_state);
    } else if ws.ws_thread < WS_COLUMN_COUNT {
        let mut ws_state = PipelineState::<WS_STAGE_COUNT>::new();
        let mut ws_grand_total = 0.0;
        let mut ws_remaining = ws_records;
        while ws_remaining > 0 {
            file.consumer_wait(&ws_state);
            let ws_record = ws.ws_area.add((SA_RING_FIRST / 4 + ws_state.index() * WS_RECORD_WORDS) as usize);
            ws_grand_total = ws_grand_total + p310_add_column(ws_record, ws.ws_thread);
            file.consumer_release(&ws_state);
            ws_state.advance();
            ws_remaining = ws_remaining - 1;
        }
        p900_write_report(&ls, &ws, ws_grand_total);
    }
}

/// No pipeline: a SORT-style work record. Every thread MOVEs its part of the record to the
/// work area, a block barrier, warp 0 ADDs its column, a block barrier before the next MOVE.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_cobol_work_record(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(WS_THREAD_COUNT);
    dynamic_shared_bytes(WS_SHARED_BYTES);
    let ls = LinkageSection { ls_input: input, ls_tiles: tiles, ls_out: out };
    let ws = p000_accept_environment();
    let mut ws_grand_total = 0.0;
    let mut ws_tile = ws.ws_block;
    loop {
        if ws_tile >= ls.ls_tiles {
            break;
        }
        p250_move_record(&ls, &ws, ws_tile);
        device::barrier();
        if ws.ws_thread < WS_COLUMN_COUNT {
            ws_grand_total = ws_grand_total + p310_add_column(ws.ws_area, ws.ws_thread);
        }
        device::barrier();
        ws_tile = ws_tile + ws.ws_blocks;
    }
    if ws.ws_thread < WS_COLUMN_COUNT {
        p900_write_report(&ls, &ws, ws_grand_total);
    }
}

/// No pipeline, with a control break: warp `w` ADDs lines `4w..4w + 4` of its column into
/// SA-SUBTOTAL-LINE, a block barrier, warp 0 rolls both subtotals into its grand total. The
/// record area and the subtotal line are apart, so two barriers a record suffice: the next
/// MOVE waits behind the subtotal barrier, the next subtotal behind the next MOVE's barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_cobol_control_break(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(WS_THREAD_COUNT);
    dynamic_shared_bytes(WS_SHARED_BYTES);
    let ls = LinkageSection { ls_input: input, ls_tiles: tiles, ls_out: out };
    let ws = p000_accept_environment();
    let ws_column = ws.ws_thread % WS_COLUMN_COUNT;
    let ws_first_line = (ws.ws_thread / WS_COLUMN_COUNT) * (WS_LINE_COUNT / 2);
    let mut ws_grand_total = 0.0;
    let mut ws_tile = ws.ws_block;
    loop {
        if ws_tile >= ls.ls_tiles {
            break;
        }
        p250_move_record(&ls, &ws, ws_tile);
        device::barrier();
        let mut ws_subtotal = 0.0;
        let mut ws_line = ws_first_line;
        loop {
            if ws_line >= ws_first_line + WS_LINE_COUNT / 2 {
                break;
            }
            ws_subtotal = ws_subtotal + *ws.ws_area.add((ws_line * WS_COLUMN_COUNT + ws_column) as usize);
            ws_line = ws_line + 1;
        }
        *ws.ws_area.add((SA_SUBTOTAL_LINE / 4 + ws.ws_thread) as usize) = ws_subtotal;
        device::barrier();
        if ws.ws_thread < WS_COLUMN_COUNT {
            ws_grand_total = ws_grand_total
                + *ws.ws_area.add((SA_SUBTOTAL_LINE / 4 + ws_column) as usize)
                + *ws.ws_area.add((SA_SUBTOTAL_LINE / 4 + WS_COLUMN_COUNT + ws_column) as usize);
        }
        ws_tile = ws_tile + ws.ws_blocks;
    }
    if ws.ws_thread < WS_COLUMN_COUNT {
        p900_write_report(&ls, &ws, ws_grand_total);
    }
}

/// BROKEN: the reader turns the 0-based stage index into a 1-based subscript (ADD 1 GIVING
/// WS-SUBSCRIPT) and places the record at `subscript * record length`, forgetting the
/// `- 1` the summarising paragraph has: every record lands one slot past the stage whose
/// barrier it completes (the last one past the ring), and warp 0 sums slots that hold an
/// older record or nothing yet.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_cobol_bad_subscript_origin(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(WS_THREAD_COUNT);
    dynamic_shared_bytes(WS_SHARED_BYTES);
    let ls = LinkageSection { ls_input: input, ls_tiles: tiles, ls_out: out };
    let ws = p000_accept_environment();
    let file = p100_open_files(&ws, SA_BARRIERS);
    if ws.ws_thread == WS_READER_THREAD {
        let mut ws_state = PipelineState::<WS_STAGE_COUNT>::producer_start();
        let mut ws_tile = ws.ws_block;
        loop {
            if ws_tile >= ls.ls_tiles {
                break;
            }
            file.producer_acquire(&ws_state);
            file.producer_expect_tx(&ws_state, WS_RECORD_BYTES);
            let ws_subscript = ws_state.index() + 1;
            let ws_slot_address = ws.ws_window + SA_RING + ws_subscript * WS_RECORD_BYTES;
            let ws_record = ls.ls_input.wrapping_add((ws_tile * WS_RECORD_WORDS) as usize) as *const u8;
            bulk_copy_global_to_shared(ws_slot_address, ws_record, WS_RECORD_BYTES, file.producer_barrier(&ws_state));
            ws_state.advance();
            ws_tile = ws_tile + ws.ws_blocks;
        }
        file.producer_tail(ws_state);
    } else if ws.ws_thread < WS_COLUMN_COUNT {
        let ws_grand_total = p300_summarise_records(&ls, &ws, &file);
        p900_write_report(&ls, &ws, ws_grand_total);
    }
}

/// BROKEN: the SHARED-AREA record was written for SA-RING OCCURS 3 TIMES from byte 0 with
/// the barriers right after it (byte 3072), but the ring holds `WS_STAGE_COUNT` (4) records:
/// the copy into slot 3 lands on the pipeline's own mbarriers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_cobol_bad_occurs_three(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(WS_THREAD_COUNT);
    dynamic_shared_bytes(WS_SHARED_BYTES);
    const SA_RING_FIRST: u32 = 0; //      05 SA-RING OCCURS 3 TIMES PIC X(1024).
    const SA_BARRIERS_AFTER: u32 = 3 * WS_RECORD_BYTES;
    let ls = LinkageSection { ls_input: input, ls_tiles: tiles, ls_out: out };
    let ws = p000_accept_environment();
    let file = p100_open_files(&ws, SA_BARRIERS_AFTER);
    if ws.ws_thread == WS_READER_THREAD {
        let mut ws_state = PipelineState::<WS_STAGE_COUNT>::producer_start();
        let mut ws_tile = ws.ws_block;
        loop {
            if ws_tile >= ls.ls_tiles {
                break;
            }
            file.producer_acquire(&ws_state);
            file.producer_expect_tx(&ws_state, WS_RECORD_BYTES);
            let ws_slot_address = ws.ws_window + SA_RING_FIRST + ws_state.index() * WS_RECORD_BYTES;
            let ws_record = ls.ls_input.wrapping_add((ws_tile * WS_RECORD_WORDS) as usize) as *const u8;
            bulk_copy_global_to_shared(ws_slot_address, ws_record, WS_RECORD_BYTES, file.producer_barrier(&ws_state));
            ws_state.advance();
            ws_tile = ws_tile + ws.ws_blocks;
        }
        file.producer_tail(ws_state);
    } else if ws.ws_thread < WS_COLUMN_COUNT {
        let mut ws_state = PipelineState::<WS_STAGE_COUNT>::new();
        let mut ws_grand_total = 0.0;
        let mut ws_tile = ws.ws_block;
        loop {
            if ws_tile >= ls.ls_tiles {
                break;
            }
            file.consumer_wait(&ws_state);
            let ws_record = ws.ws_area.add((SA_RING_FIRST / 4 + ws_state.index() * WS_RECORD_WORDS) as usize);
            ws_grand_total = ws_grand_total + p310_add_column(ws_record, ws.ws_thread);
            file.consumer_release(&ws_state);
            ws_state.advance();
            ws_tile = ws_tile + ws.ws_blocks;
        }
        p900_write_report(&ls, &ws, ws_grand_total);
    }
}

/// BROKEN: the work-record program with the block barrier between the MOVE and the ADD taken
/// out ("each thread MOVEs before it ADDs"): warp 0 adds lines 1, 3, 5 and 7 of its column,
/// which warp 1 MOVEs, without waiting for warp 1's MOVE, and sums the previous record's
/// lines (or whatever the area held) where warp 1 has not stored yet.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_cobol_bad_add_before_move(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(WS_THREAD_COUNT);
    dynamic_shared_bytes(WS_SHARED_BYTES);
    let ls = LinkageSection { ls_input: input, ls_tiles: tiles, ls_out: out };
    let ws = p000_accept_environment();
    let mut ws_grand_total = 0.0;
    let mut ws_tile = ws.ws_block;
    loop {
        if ws_tile >= ls.ls_tiles {
            break;
        }
        p250_move_record(&ls, &ws, ws_tile);
        if ws.ws_thread < WS_COLUMN_COUNT {
            ws_grand_total = ws_grand_total + p310_add_column(ws.ws_area, ws.ws_thread);
        }
        device::barrier();
        ws_tile = ws_tile + ws.ws_blocks;
    }
    if ws.ws_thread < WS_COLUMN_COUNT {
        p900_write_report(&ls, &ws, ws_grand_total);
    }
}

/// BROKEN: the transfer length is MOVEd from WS-RECORD-WORDS instead of WS-RECORD-BYTES:
/// each record is announced and copied as 256 bytes, so only lines 0 and 1 of a slot are
/// ever filled and warp 0 adds lines 2 to 7 of slots no copy wrote.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_cobol_bad_length_in_words(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(WS_THREAD_COUNT);
    dynamic_shared_bytes(WS_SHARED_BYTES);
    let ls = LinkageSection { ls_input: input, ls_tiles: tiles, ls_out: out };
    let ws = p000_accept_environment();
    let file = p100_open_files(&ws, SA_BARRIERS);
    if ws.ws_thread == WS_READER_THREAD {
        let ws_transfer_length = WS_RECORD_WORDS; // MOVE WS-RECORD-WORDS TO WS-TRANSFER-LENGTH.
        let mut ws_state = PipelineState::<WS_STAGE_COUNT>::producer_start();
        let mut ws_tile = ws.ws_block;
        loop {
            if ws_tile >= ls.ls_tiles {
                break;
            }
            file.producer_acquire(&ws_state);
            file.producer_expect_tx(&ws_state, ws_transfer_length);
            let ws_slot_address = ws.ws_window + SA_RING + ws_state.index() * WS_RECORD_BYTES;
            let ws_record = ls.ls_input.wrapping_add((ws_tile * WS_RECORD_WORDS) as usize) as *const u8;
            bulk_copy_global_to_shared(ws_slot_address, ws_record, ws_transfer_length, file.producer_barrier(&ws_state));
            ws_state.advance();
            ws_tile = ws_tile + ws.ws_blocks;
        }
        file.producer_tail(ws_state);
    } else if ws.ws_thread < WS_COLUMN_COUNT {
        let ws_grand_total = p300_summarise_records(&ls, &ws, &file);
        p900_write_report(&ls, &ws, ws_grand_total);
    }
}
