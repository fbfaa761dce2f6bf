/*
 * SPDX-FileCopyrightText: Copyright (c) 2026 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
 * SPDX-License-Identifier: Apache-2.0
 */

//! Classic global-to-shared asynchronous copy intrinsics.
//!
//! The public paths stay stable while their definitions come from the
//! generated intrinsic catalog.

include!("generated/async_copy.rs");
