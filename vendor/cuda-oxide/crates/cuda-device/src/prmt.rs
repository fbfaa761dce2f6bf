// Copyright (c) 2026 NVIDIA CORPORATION. All rights reserved.
// SPDX-License-Identifier: Apache-2.0

//! Byte permutation intrinsics.

include!("generated/prmt.rs");
