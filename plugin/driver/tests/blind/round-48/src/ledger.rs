//! Module `ledger`: bookkeeping conventions. The block keeps the books of 32 accounts (the
//! output columns); each tile is a journal of 256 postings, posting `p` debiting account
//! `p % 32`. Balances live in a ledger in shared memory, one slot per account, owned by the
//! clerk (thread) that keeps that account: a journal is posted (its postings summed into the
//! account's balance, carried forward from journal to journal) and, after the last journal,
//! the books are closed (each balance written to `out`). Each clerk also keeps a control total
//! of what it posted, the other side of every entry, checked against the balance at closing.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{bulk_copy_global_to_shared, Pipeline, PipelineState};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const BLOCK: u32 = 64;
const WINDOW_BYTES: u32 = 8192;
const STAGES: u32 = 4;
const ACCOUNTS: usize = 32;
const JOURNAL_POSTINGS: usize = 256;
const JOURNAL_BYTES: u32 = 1024;
const CLERKS: u32 = 32;

/// Pipeline: barriers at byte 0, the ledger at byte 512, the journal ring from byte 1024; each
/// consumer clerk posts every journal to its account's balance in the ledger.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_ledger_pipeline_journal(input: *const f32, tiles: u32, out: *mut f32) {
    const BARRIERS: u32 = 0;
    const LEDGER_FLOATS: usize = 128;
    const RING: u32 = 1024;
    const RING_FLOATS: usize = 256;
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tid = thread_idx_x();
    let book = block_idx_x();
    let books = grid_dim_x();
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    let ledger = base.add(LEDGER_FLOATS);
    if tid == 0 {
        let _ = Pipeline::<STAGES>::init(window + BARRIERS, CLERKS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARRIERS);
    if tid == 0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut journal = book;
        while journal < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, JOURNAL_BYTES);
            bulk_copy_global_to_shared(
                window + RING + st.index() * JOURNAL_BYTES,
                input.add(journal as usize * JOURNAL_POSTINGS) as *const u8,
                JOURNAL_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            journal += books;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let account = (tid - 32) as usize;
        *ledger.add(account) = 0.0;
        let mut control = 0.0f32;
        let mut st = PipelineState::<STAGES>::new();
        let mut journal = book;
        while journal < tiles {
            pipe.consumer_wait(&st);
            let entries = base.add(RING_FLOATS + st.index() as usize * JOURNAL_POSTINGS);
            let mut debit = 0.0f32;
            for line in 0..8 {
                debit += *entries.add(line * ACCOUNTS + account);
            }
            pipe.consumer_release(&st);
            *ledger.add(account) += debit;
            control += debit;
            st.advance();
            journal += books;
        }
        // Close the books; the control total is the credit side of the same entries.
        let balance = *ledger.add(account);
        *out.add(book as usize * ACCOUNTS + account) = if balance == control { balance } else { control };
    }
}

/// Plain day book: all 64 threads copy the journal into shared memory, a block barrier, clerks
/// 0..31 post it to their ledger slots, a second barrier before the next journal is copied in.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_ledger_plain_daybook(input: *const f32, tiles: u32, out: *mut f32) {
    const LEDGER_FLOATS: usize = 512;
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    let clerk = thread_idx_x() as usize;
    let book = block_idx_x();
    let books = grid_dim_x();
    let day_book = dynamic_shared_base::<f32>();
    let ledger = day_book.add(LEDGER_FLOATS);
    if clerk < ACCOUNTS {
        *ledger.add(clerk) = 0.0;
    }
    let mut journal = book;
    while journal < tiles {
        let source = input.add(journal as usize * JOURNAL_POSTINGS);
        for k in 0..4 {
            *day_book.add(clerk + 64 * k) = *source.add(clerk + 64 * k);
        }
        barrier();
        if clerk < ACCOUNTS {
            let mut balance = *ledger.add(clerk);
            for line in 0..8 {
                balance += *day_book.add(line * ACCOUNTS + clerk);
            }
            *ledger.add(clerk) = balance;
        }
        barrier();
        journal += books;
    }
    if clerk < ACCOUNTS {
        *out.add(book as usize * ACCOUNTS + clerk) = *ledger.add(clerk);
    }
}

/// Pipeline with the journal ring first (bytes 0..4096), the barriers after it (4096..4160) and
/// the ledger after those (byte 4608): the layout turned around, as MODEL.md allows.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_ledger_barriers_after_ring(input: *const f32, tiles: u32, out: *mut f32) {
    const RING: u32 = 0;
    const BARRIERS: u32 = 4096;
    const LEDGER_FLOATS: usize = 1152;
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tid = thread_idx_x();
    let book = block_idx_x();
    let books = grid_dim_x();
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    let ledger = base.add(LEDGER_FLOATS);
    if tid == 0 {
        let _ = Pipeline::<STAGES>::init(window + BARRIERS, CLERKS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARRIERS);
    if tid == 0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut journal = book;
        while journal < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, JOURNAL_BYTES);
            bulk_copy_global_to_shared(
                window + RING + st.index() * JOURNAL_BYTES,
                input.add(journal as usize * JOURNAL_POSTINGS) as *const u8,
                JOURNAL_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            journal += books;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let account = (tid - 32) as usize;
        *ledger.add(account) = 0.0;
        let mut st = PipelineState::<STAGES>::new();
        let mut journal = book;
        while journal < tiles {
            pipe.consumer_wait(&st);
            let entries = base.add(st.index() as usize * JOURNAL_POSTINGS);
            let mut debit = 0.0f32;
            for line in 0..8 {
                debit += *entries.add(line * ACCOUNTS + account);
            }
            pipe.consumer_release(&st);
            *ledger.add(account) += debit;
            st.advance();
            journal += books;
        }
        *out.add(book as usize * ACCOUNTS + account) = *ledger.add(account);
    }
}

/// Plain, two clerks per account: warp 0 posts lines 0..4 and warp 1 lines 4..8 of every journal
/// (read from global memory) into running balances; at closing each files its balance in its
/// own sub-ledger, a block barrier, and warp 0 adds the two sub-ledgers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_ledger_two_clerks(input: *const f32, tiles: u32, out: *mut f32) {
    const SUB_LEDGERS_FLOATS: usize = 256;
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tid = thread_idx_x() as usize;
    let account = tid % ACCOUNTS;
    let desk = tid / ACCOUNTS;
    let book = block_idx_x();
    let books = grid_dim_x();
    let sub_ledgers = dynamic_shared_base::<f32>().add(SUB_LEDGERS_FLOATS);
    let mut balance = 0.0f32;
    let mut journal = book;
    while journal < tiles {
        let lines = input.add(journal as usize * JOURNAL_POSTINGS + desk * 4 * ACCOUNTS);
        for line in 0..4 {
            balance += *lines.add(line * ACCOUNTS + account);
        }
        journal += books;
    }
    *sub_ledgers.add(desk * ACCOUNTS + account) = balance;
    barrier();
    if desk == 0 {
        let total = *sub_ledgers.add(account) + *sub_ledgers.add(ACCOUNTS + account);
        *out.add(book as usize * ACCOUNTS + account) = total;
    }
}

/// BROKEN: the two clerks close the books without the block barrier: warp 0 reads warp 1's
/// sub-ledger slot in the same interval in which warp 1 files it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_ledger_bad_clerks_close_early(input: *const f32, tiles: u32, out: *mut f32) {
    const SUB_LEDGERS_FLOATS: usize = 256;
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tid = thread_idx_x() as usize;
    let account = tid % ACCOUNTS;
    let desk = tid / ACCOUNTS;
    let book = block_idx_x();
    let books = grid_dim_x();
    let sub_ledgers = dynamic_shared_base::<f32>().add(SUB_LEDGERS_FLOATS);
    let mut balance = 0.0f32;
    let mut journal = book;
    while journal < tiles {
        let lines = input.add(journal as usize * JOURNAL_POSTINGS + desk * 4 * ACCOUNTS);
        for line in 0..4 {
            balance += *lines.add(line * ACCOUNTS + account);
        }
        journal += books;
    }
    *sub_ledgers.add(desk * ACCOUNTS + account) = balance;
    if desk == 0 {
        let total = *sub_ledgers.add(account) + *sub_ledgers.add(ACCOUNTS + account);
        *out.add(book as usize * ACCOUNTS + account) = total;
    }
}

/// BROKEN: the ledger was put "at the start of the journal area" (byte 1024), which is stage 0
/// of the ring: every journal copied into stage 0 overwrites the balances, and the clerks'
/// balance updates corrupt the journals they post.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_ledger_bad_ledger_on_ring(input: *const f32, tiles: u32, out: *mut f32) {
    const BARRIERS: u32 = 0;
    const RING: u32 = 1024;
    const RING_FLOATS: usize = 256;
    const LEDGER_FLOATS: usize = 256;
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tid = thread_idx_x();
    let book = block_idx_x();
    let books = grid_dim_x();
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    let ledger = base.add(LEDGER_FLOATS);
    if tid == 0 {
        let _ = Pipeline::<STAGES>::init(window + BARRIERS, CLERKS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARRIERS);
    if tid == 0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut journal = book;
        while journal < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, JOURNAL_BYTES);
            bulk_copy_global_to_shared(
                window + RING + st.index() * JOURNAL_BYTES,
                input.add(journal as usize * JOURNAL_POSTINGS) as *const u8,
                JOURNAL_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            journal += books;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let account = (tid - 32) as usize;
        *ledger.add(account) = 0.0;
        let mut st = PipelineState::<STAGES>::new();
        let mut journal = book;
        while journal < tiles {
            pipe.consumer_wait(&st);
            let entries = base.add(RING_FLOATS + st.index() as usize * JOURNAL_POSTINGS);
            let mut debit = 0.0f32;
            for line in 0..8 {
                debit += *entries.add(line * ACCOUNTS + account);
            }
            pipe.consumer_release(&st);
            *ledger.add(account) += debit;
            st.advance();
            journal += books;
        }
        *out.add(book as usize * ACCOUNTS + account) = *ledger.add(account);
    }
}

/// BROKEN: the ledger holds 33 slots (32 accounts and a suspense account, 132 bytes) and the
/// pipeline's barriers were placed right after it, at byte 132: mbarriers 4 bytes off their
/// 8-byte alignment.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_ledger_bad_barriers_after_suspense(input: *const f32, tiles: u32, out: *mut f32) {
    const LEDGER_SLOTS: u32 = 33;
    const BARRIERS: u32 = LEDGER_SLOTS * 4;
    const RING: u32 = 1024;
    const RING_FLOATS: usize = 256;
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tid = thread_idx_x();
    let book = block_idx_x();
    let books = grid_dim_x();
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    let ledger = base;
    if tid == 0 {
        let _ = Pipeline::<STAGES>::init(window + BARRIERS, CLERKS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARRIERS);
    if tid == 0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut journal = book;
        while journal < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, JOURNAL_BYTES);
            bulk_copy_global_to_shared(
                window + RING + st.index() * JOURNAL_BYTES,
                input.add(journal as usize * JOURNAL_POSTINGS) as *const u8,
                JOURNAL_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            journal += books;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let account = (tid - 32) as usize;
        *ledger.add(account) = 0.0;
        let mut st = PipelineState::<STAGES>::new();
        let mut journal = book;
        while journal < tiles {
            pipe.consumer_wait(&st);
            let entries = base.add(RING_FLOATS + st.index() as usize * JOURNAL_POSTINGS);
            let mut debit = 0.0f32;
            for line in 0..8 {
                debit += *entries.add(line * ACCOUNTS + account);
            }
            pipe.consumer_release(&st);
            *ledger.add(account) += debit;
            st.advance();
            journal += books;
        }
        *out.add(book as usize * ACCOUNTS + account) = *ledger.add(account);
    }
}

/// BROKEN: the clerks open their position in the ring with `PipelineState::producer_start()`
/// (phase 1), copied from the producer's line: their first wait on each stage returns at once,
/// before the journal landed, and they post whatever the stage held.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_ledger_bad_posting_phase(input: *const f32, tiles: u32, out: *mut f32) {
    const BARRIERS: u32 = 0;
    const LEDGER_FLOATS: usize = 128;
    const RING: u32 = 1024;
    const RING_FLOATS: usize = 256;
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tid = thread_idx_x();
    let book = block_idx_x();
    let books = grid_dim_x();
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    let ledger = base.add(LEDGER_FLOATS);
    if tid == 0 {
        let _ = Pipeline::<STAGES>::init(window + BARRIERS, CLERKS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARRIERS);
    if tid == 0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut journal = book;
        while journal < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, JOURNAL_BYTES);
            bulk_copy_global_to_shared(
                window + RING + st.index() * JOURNAL_BYTES,
                input.add(journal as usize * JOURNAL_POSTINGS) as *const u8,
                JOURNAL_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            journal += books;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let account = (tid - 32) as usize;
        *ledger.add(account) = 0.0;
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut journal = book;
        while journal < tiles {
            pipe.consumer_wait(&st);
            let entries = base.add(RING_FLOATS + st.index() as usize * JOURNAL_POSTINGS);
            let mut debit = 0.0f32;
            for line in 0..8 {
                debit += *entries.add(line * ACCOUNTS + account);
            }
            pipe.consumer_release(&st);
            *ledger.add(account) += debit;
            st.advance();
            journal += books;
        }
        *out.add(book as usize * ACCOUNTS + account) = *ledger.add(account);
    }
}
