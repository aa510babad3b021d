//! Profiles shipped with ssdtwin: tables of (name, TOML text) embedded at build time from
//! `profiles/`, one table per kind (drives, `hosts/`, `hdd/`, `pools/`). Each kind keeps
//! its own table beside its schema; these functions read any of them.

/// A table of shipped profiles: (name, TOML text), in the order listings show them.
pub type ShippedTable = &'static [(&'static str, &'static str)];

/// Names of the profiles in `table`, in its order.
pub fn names(table: ShippedTable) -> Vec<&'static str> {
    table.iter().map(|(n, _)| *n).collect()
}

/// The text of the shipped profile `name` in `table`.
pub fn text(table: ShippedTable, name: &str) -> Option<&'static str> {
    table.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}
