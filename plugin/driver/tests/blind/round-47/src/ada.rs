//! Module `ada`: Ada/Pascal-style code. Ranged subtypes as checked newtypes (`Column_Index`,
//! `Row_Index` with `First`/`Last` and a `Val` that raises `Constraint_Error`, here a trap), ranges
//! written inclusive as `First .. Last`, `in out` parameters as `&mut`, procedures named
//! `Mixed_Case`, the two roles as "task bodies", membership tests `Tid in Consumer_Range`,
//! representation clauses for where things sit in the shared storage pool, and `for K in reverse`.
#![allow(non_snake_case, non_camel_case_types, non_upper_case_globals)]

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const Block_Thread_Count: u32 = 64;
const Shared_Storage_Size: u32 = 8192;
const Row_Length: u32 = 32;
const Tile_Length: u32 = 256;
const Float_Size: u32 = 4;
const Tile_Size_In_Bytes: u32 = Tile_Length * Float_Size;
const Stages: u32 = 4;
const Producer_Task_Id: u32 = 0;
/// `Consumer_Range : constant range := 32 .. 63;`
const Consumer_First: u32 = 32;
const Consumer_Last: u32 = 63;
/// `for Barriers'Address use Pool'Address + 0; for Ring'Address use Pool'Address + 1024;`
const Barriers_Offset: u32 = 0;
const Ring_Offset: u32 = 1024;

/// `subtype Column_Index is Natural range 0 .. 31;`
#[derive(Clone, Copy)]
struct Column_Index(u32);

impl Column_Index {
    const First: u32 = 0;
    const Last: u32 = Row_Length - 1;

    #[inline(always)]
    fn Val(V: u32) -> Column_Index {
        assert!(V <= Self::Last, "Constraint_Error");
        Column_Index(V)
    }

    #[inline(always)]
    fn Pos(self) -> u32 {
        self.0
    }
}

/// `subtype Row_Index is Natural range 0 .. 7;`
struct Row_Index;

impl Row_Index {
    const First: u32 = 0;
    const Last: u32 = 7;
}

/// `function Length (First, Last) return Natural is (Last - First + 1);`
const fn Range_Length(First: u32, Last: u32) -> u32 {
    Last - First + 1
}

/// `Consumer_Range'Length` and `Column_Index'Length`, static as in Ada.
const Consumer_Range_Length: u32 = Range_Length(Consumer_First, Consumer_Last);
const Column_Index_Length: u32 = Range_Length(Column_Index::First, Column_Index::Last);

/// `procedure Sum_Column (Tile : in Float_Access; Col : in Column_Index; Total : in out Float)`
#[inline(always)]
unsafe fn Sum_Column(Tile: *const f32, Col: Column_Index, Total: &mut f32) {
    for R in Row_Index::First..=Row_Index::Last {
        *Total += *Tile.add((R * Row_Length + Col.Pos()) as usize);
    }
}

/// `function Tiles_Owned (First, Step, Count : Natural) return Natural`
#[inline(always)]
fn Tiles_Owned(First: u32, Step: u32, Count: u32) -> u32 {
    if First < Count { (Count - First + Step - 1) / Step } else { 0 }
}

/// The protected object's elaboration: the producer task initialises the barriers.
#[inline(always)]
fn Elaborate_Pipeline<const N: u32>(Barriers: u32, Producer: u32, Consumers: u32) -> Pipeline<N> {
    if thread_idx_x() == Producer {
        Pipeline::<N>::init(Barriers, Consumers);
    }
    barrier();
    Pipeline::<N>::attach(Barriers)
}

/// `task body Producer`: every owned tile into the next stage of the ring.
#[inline(always)]
unsafe fn Producer_Task_Body(Pipe: &Pipeline<Stages>, Window: u32, Input: *const f32, First: u32, Step: u32, Count: u32) {
    let mut S = PipelineState::<Stages>::producer_start();
    let mut T = First;
    while T < Count {
        Pipe.producer_acquire(&S);
        Pipe.producer_expect_tx(&S, Tile_Size_In_Bytes);
        let Source = Input.add((T * Tile_Length) as usize) as *const u8;
        bulk_copy_global_to_shared(Window + Ring_Offset + S.index() * Tile_Size_In_Bytes, Source, Tile_Size_In_Bytes, Pipe.producer_barrier(&S));
        S.advance();
        T += Step;
    }
    Pipe.producer_tail(S);
}

/// `task body Consumer`: sums its column of every owned tile, then stores it.
#[inline(always)]
unsafe fn Consumer_Task_Body(Pipe: &Pipeline<Stages>, Col: Column_Index, First: u32, Step: u32, Count: u32, Output: *mut f32) {
    let Ring = dynamic_shared_base::<f32>().add((Ring_Offset / Float_Size) as usize);
    let mut S = PipelineState::<Stages>::new();
    let mut Total: f32 = 0.0;
    let mut T = First;
    while T < Count {
        Pipe.consumer_wait(&S);
        Sum_Column(Ring.add((S.index() * Tile_Length) as usize), Col, &mut Total);
        Pipe.consumer_release(&S);
        S.advance();
        T += Step;
    }
    *Output.add((block_idx_x() * Row_Length + Col.Pos()) as usize) = Total;
}

/// Producer task 0 and consumer tasks 32 .. 63, each role a task body, the column a checked
/// `Column_Index`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_ada_task_bodies(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(Block_Thread_Count);
    dynamic_shared_bytes(Shared_Storage_Size);
    let Window = dynamic_shared_window_address();
    let Pipe = Elaborate_Pipeline::<Stages>(Window + Barriers_Offset, Producer_Task_Id, Consumer_Range_Length);
    let Tid = thread_idx_x();
    if Tid == Producer_Task_Id {
        Producer_Task_Body(&Pipe, Window, input, block_idx_x(), grid_dim_x(), tiles);
    } else if (Consumer_First..=Consumer_Last).contains(&Tid) {
        Consumer_Task_Body(&Pipe, Column_Index::Val(Tid - Consumer_First), block_idx_x(), grid_dim_x(), tiles, out);
    }
}

/// `for K in reverse 0 .. Owned - 1 loop`: both roles walk the block's tiles from the last to the
/// first (the copy and the sums do not care about the order).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_ada_reverse_tiles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(Block_Thread_Count);
    dynamic_shared_bytes(Shared_Storage_Size);
    let Window = dynamic_shared_window_address();
    let Pipe = Elaborate_Pipeline::<Stages>(Window + Barriers_Offset, Producer_Task_Id, Consumer_Range_Length);
    let Tid = thread_idx_x();
    let First = block_idx_x();
    let Step = grid_dim_x();
    let Owned = Tiles_Owned(First, Step, tiles);
    if Tid == Producer_Task_Id {
        let mut S = PipelineState::<Stages>::producer_start();
        for K in (0..Owned).rev() {
            let T = First + K * Step;
            Pipe.producer_acquire(&S);
            Pipe.producer_expect_tx(&S, Tile_Size_In_Bytes);
            let Source = input.add((T * Tile_Length) as usize) as *const u8;
            bulk_copy_global_to_shared(Window + Ring_Offset + S.index() * Tile_Size_In_Bytes, Source, Tile_Size_In_Bytes, Pipe.producer_barrier(&S));
            S.advance();
        }
        Pipe.producer_tail(S);
    } else if (Consumer_First..=Consumer_Last).contains(&Tid) {
        let Col = Column_Index::Val(Tid - Consumer_First);
        let Ring = dynamic_shared_base::<f32>().add((Ring_Offset / Float_Size) as usize);
        let mut S = PipelineState::<Stages>::new();
        let mut Total: f32 = 0.0;
        for _K in (0..Owned).rev() {
            Pipe.consumer_wait(&S);
            Sum_Column(Ring.add((S.index() * Tile_Length) as usize), Col, &mut Total);
            Pipe.consumer_release(&S);
            S.advance();
        }
        *out.add((First * Row_Length + Col.Pos()) as usize) = Total;
    }
}

/// `type Tile_Record is array (Row_Index, Column_Index) of Float;` placed at the start of the
/// shared pool: every task stores its four elements by row and column, barrier, the first 32
/// tasks add up their column, barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_ada_plain_tile_record(input: *const f32, tiles: u32, out: *mut f32) {
    type Tile_Record = [[f32; Row_Length as usize]; (Row_Index::Last + 1) as usize];
    block_threads(Block_Thread_Count);
    dynamic_shared_bytes(Shared_Storage_Size);
    let Rec = dynamic_shared_base::<Tile_Record>();
    let Tid = thread_idx_x();
    let mut Total: f32 = 0.0;
    let mut T = block_idx_x();
    while T < tiles {
        for K in 0..Tile_Length / Block_Thread_Count {
            let E = Tid + Block_Thread_Count * K;
            (*Rec)[(E / Row_Length) as usize][(E % Row_Length) as usize] = *input.add((T * Tile_Length + E) as usize);
        }
        barrier();
        if Tid <= Column_Index::Last {
            for R in Row_Index::First..=Row_Index::Last {
                Total += (*Rec)[R as usize][Tid as usize];
            }
        }
        barrier();
        T += grid_dim_x();
    }
    if Tid <= Column_Index::Last {
        *out.add((block_idx_x() * Row_Length + Tid) as usize) = Total;
    }
}

/// A representation clause putting the three-stage ring first in the pool (bytes 0 .. 3071) and
/// the barriers after it (byte 3072); the producer task is 32 and the consumer tasks 0 .. 31.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_ada_barriers_after_ring(input: *const f32, tiles: u32, out: *mut f32) {
    const Ring_Stages: u32 = 3;
    const Ring_At: u32 = 0;
    const Barriers_At: u32 = Ring_At + Ring_Stages * Tile_Size_In_Bytes;
    const Producer_Id: u32 = 32;
    block_threads(Block_Thread_Count);
    dynamic_shared_bytes(Shared_Storage_Size);
    let Window = dynamic_shared_window_address();
    let Pipe = Elaborate_Pipeline::<Ring_Stages>(Window + Barriers_At, Producer_Id, Column_Index_Length);
    let Tid = thread_idx_x();
    if Tid == Producer_Id {
        let mut S = PipelineState::<Ring_Stages>::producer_start();
        let mut T = block_idx_x();
        while T < tiles {
            Pipe.producer_acquire(&S);
            Pipe.producer_expect_tx(&S, Tile_Size_In_Bytes);
            let Source = input.add((T * Tile_Length) as usize) as *const u8;
            bulk_copy_global_to_shared(Window + Ring_At + S.index() * Tile_Size_In_Bytes, Source, Tile_Size_In_Bytes, Pipe.producer_barrier(&S));
            S.advance();
            T += grid_dim_x();
        }
        Pipe.producer_tail(S);
    } else if Tid <= Column_Index::Last {
        let Col = Column_Index::Val(Tid);
        let Ring = dynamic_shared_base::<f32>().add((Ring_At / Float_Size) as usize);
        let mut S = PipelineState::<Ring_Stages>::new();
        let mut Total: f32 = 0.0;
        let mut T = block_idx_x();
        while T < tiles {
            Pipe.consumer_wait(&S);
            Sum_Column(Ring.add((S.index() * Tile_Length) as usize), Col, &mut Total);
            Pipe.consumer_release(&S);
            S.advance();
            T += grid_dim_x();
        }
        *out.add((block_idx_x() * Row_Length + Col.Pos()) as usize) = Total;
    }
}

/// BROKEN: the row subtype was carried over from a 1-based declaration (`range 1 .. 8`) as
/// `0 .. 8`, so `Sum_Rows` adds nine rows: row 8 of a stage is row 0 of the next stage (or the
/// bytes after the ring for the last stage).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_ada_bad_row_last_eight(input: *const f32, tiles: u32, out: *mut f32) {
    const Row_Last_From_One_Based: u32 = 8;
    block_threads(Block_Thread_Count);
    dynamic_shared_bytes(Shared_Storage_Size);
    let Window = dynamic_shared_window_address();
    let Pipe = Elaborate_Pipeline::<Stages>(Window + Barriers_Offset, Producer_Task_Id, Consumer_Range_Length);
    let Tid = thread_idx_x();
    if Tid == Producer_Task_Id {
        Producer_Task_Body(&Pipe, Window, input, block_idx_x(), grid_dim_x(), tiles);
    } else if (Consumer_First..=Consumer_Last).contains(&Tid) {
        let Col = Column_Index::Val(Tid - Consumer_First);
        let Ring = dynamic_shared_base::<f32>().add((Ring_Offset / Float_Size) as usize);
        let mut S = PipelineState::<Stages>::new();
        let mut Total: f32 = 0.0;
        let mut T = block_idx_x();
        while T < tiles {
            Pipe.consumer_wait(&S);
            let Tile = Ring.add((S.index() * Tile_Length) as usize);
            for R in Row_Index::First..=Row_Last_From_One_Based {
                Total += *Tile.add((R * Row_Length + Col.Pos()) as usize);
            }
            Pipe.consumer_release(&S);
            S.advance();
            T += grid_dim_x();
        }
        *out.add((block_idx_x() * Row_Length + Col.Pos()) as usize) = Total;
    }
}

/// BROKEN: `Consumer_Range` declared `32 .. 64` ("up to the block size"): its `'Length`, 33, is
/// what the barriers are elaborated with, while only the 32 tasks 32 .. 63 exist to release each
/// stage, so no empty barrier ever completes and the producer hangs on its fifth tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_ada_bad_consumer_range_length(input: *const f32, tiles: u32, out: *mut f32) {
    const Consumer_Range_Last: u32 = Block_Thread_Count;
    const Bad_Consumer_Range_Length: u32 = Range_Length(Consumer_First, Consumer_Range_Last);
    block_threads(Block_Thread_Count);
    dynamic_shared_bytes(Shared_Storage_Size);
    let Window = dynamic_shared_window_address();
    let Pipe = Elaborate_Pipeline::<Stages>(Window + Barriers_Offset, Producer_Task_Id, Bad_Consumer_Range_Length);
    let Tid = thread_idx_x();
    if Tid == Producer_Task_Id {
        Producer_Task_Body(&Pipe, Window, input, block_idx_x(), grid_dim_x(), tiles);
    } else if (Consumer_First..=Consumer_Range_Last).contains(&Tid) {
        Consumer_Task_Body(&Pipe, Column_Index::Val(Tid - Consumer_First), block_idx_x(), grid_dim_x(), tiles, out);
    }
}

/// BROKEN: the producer task "announces the entry before waiting on it": `expect_tx` on a stage's
/// full barrier before `producer_acquire` of that stage. On its second pass over the ring it
/// arrives on a full barrier whose previous phase is still waiting for its copy, so that phase
/// gets a second arrival and the bytes of two tiles, and the ring deadlocks.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_ada_bad_announce_before_acquire(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(Block_Thread_Count);
    dynamic_shared_bytes(Shared_Storage_Size);
    let Window = dynamic_shared_window_address();
    let Pipe = Elaborate_Pipeline::<Stages>(Window + Barriers_Offset, Producer_Task_Id, Consumer_Range_Length);
    let Tid = thread_idx_x();
    if Tid == Producer_Task_Id {
        let mut S = PipelineState::<Stages>::producer_start();
        let mut T = block_idx_x();
        while T < tiles {
            Pipe.producer_expect_tx(&S, Tile_Size_In_Bytes);
            Pipe.producer_acquire(&S);
            let Source = input.add((T * Tile_Length) as usize) as *const u8;
            bulk_copy_global_to_shared(Window + Ring_Offset + S.index() * Tile_Size_In_Bytes, Source, Tile_Size_In_Bytes, Pipe.producer_barrier(&S));
            S.advance();
            T += grid_dim_x();
        }
        Pipe.producer_tail(S);
    } else if (Consumer_First..=Consumer_Last).contains(&Tid) {
        Consumer_Task_Body(&Pipe, Column_Index::Val(Tid - Consumer_First), block_idx_x(), grid_dim_x(), tiles, out);
    }
}

/// BROKEN: the consumer task keeps no state between tiles ("a function of the tile number"):
/// each pass builds a fresh `PipelineState` and advances it `K mod Stages` times. The stage index
/// is right but the phase is always 0, so from the second pass over the two-stage ring on, the
/// wait returns at once on the previous phase and the task sums the stage before its new tile
/// has landed.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_ada_bad_state_from_tile_number(input: *const f32, tiles: u32, out: *mut f32) {
    const Double: u32 = 2;
    block_threads(Block_Thread_Count);
    dynamic_shared_bytes(Shared_Storage_Size);
    let Window = dynamic_shared_window_address();
    let Pipe = Elaborate_Pipeline::<Double>(Window + Barriers_Offset, Producer_Task_Id, Consumer_Range_Length);
    let Tid = thread_idx_x();
    if Tid == Producer_Task_Id {
        let mut S = PipelineState::<Double>::producer_start();
        let mut T = block_idx_x();
        while T < tiles {
            Pipe.producer_acquire(&S);
            Pipe.producer_expect_tx(&S, Tile_Size_In_Bytes);
            let Source = input.add((T * Tile_Length) as usize) as *const u8;
            bulk_copy_global_to_shared(Window + Ring_Offset + S.index() * Tile_Size_In_Bytes, Source, Tile_Size_In_Bytes, Pipe.producer_barrier(&S));
            S.advance();
            T += grid_dim_x();
        }
        Pipe.producer_tail(S);
    } else if (Consumer_First..=Consumer_Last).contains(&Tid) {
        let Col = Column_Index::Val(Tid - Consumer_First);
        let Ring = dynamic_shared_base::<f32>().add((Ring_Offset / Float_Size) as usize);
        let mut Total: f32 = 0.0;
        let mut K: u32 = 0;
        let mut T = block_idx_x();
        while T < tiles {
            let mut S = PipelineState::<Double>::new();
            for _ in 0..K % Double {
                S.advance();
            }
            Pipe.consumer_wait(&S);
            Sum_Column(Ring.add((S.index() * Tile_Length) as usize), Col, &mut Total);
            Pipe.consumer_release(&S);
            K += 1;
            T += grid_dim_x();
        }
        *out.add((block_idx_x() * Row_Length + Col.Pos()) as usize) = Total;
    }
}
