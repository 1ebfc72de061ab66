//! Skeleton of the node binding; its own issue fills it in.

pub use ledger_core;
