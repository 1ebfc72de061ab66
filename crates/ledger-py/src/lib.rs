//! Skeleton of the py binding; its own issue fills it in.

pub use ledger_core;
