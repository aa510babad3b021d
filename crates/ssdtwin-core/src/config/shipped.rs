//! Profiles shipped with ssdtwin, embedded at build time from `profiles/`.

/// (name, TOML text) of every shipped profile.
pub const SHIPPED: &[(&str, &str)] = &[
    ("generic-tlc-1tb", include_str!("../../../../profiles/generic-tlc-1tb.toml")),
    ("p32a80", include_str!("../../../../profiles/p32a80.toml")),
    ("crucial-p1", include_str!("../../../../profiles/crucial-p1.toml")),
    ("wd-black-256", include_str!("../../../../profiles/wd-black-256.toml")),
    ("micron-9200max", include_str!("../../../../profiles/micron-9200max.toml")),
    ("iodrive2-1200", include_str!("../../../../profiles/iodrive2-1200.toml")),
    ("intel-910-400", include_str!("../../../../profiles/intel-910-400.toml")),
];

/// Names of the shipped profiles.
pub fn shipped_names() -> Vec<&'static str> {
    crate::profile_file::shipped::names(SHIPPED)
}

/// Text of a shipped profile.
pub fn shipped_text(name: &str) -> Option<&'static str> {
    crate::profile_file::shipped::text(SHIPPED, name)
}
