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
    ("generic-fdp-960g", include_str!("../../../../profiles/generic-fdp-960g.toml")),
    ("generic-zns-966g", include_str!("../../../../profiles/generic-zns-966g.toml")),
    // The library: built by `ssdtwin profile new` from the sheets in
    // python/ssdtwin/datasheet/sheets (docs/profiles.md, "The library").
    ("crucial-mx500-1tb", include_str!("../../../../profiles/crucial-mx500-1tb.toml")),
    ("crucial-t500-2tb", include_str!("../../../../profiles/crucial-t500-2tb.toml")),
    ("samsung-870-qvo-1tb", include_str!("../../../../profiles/samsung-870-qvo-1tb.toml")),
    ("samsung-870-qvo-4tb", include_str!("../../../../profiles/samsung-870-qvo-4tb.toml")),
    ("samsung-970-evo-plus-1tb", include_str!("../../../../profiles/samsung-970-evo-plus-1tb.toml")),
    ("samsung-980-pro-1tb", include_str!("../../../../profiles/samsung-980-pro-1tb.toml")),
    ("samsung-990-pro-2tb", include_str!("../../../../profiles/samsung-990-pro-2tb.toml")),
    ("wd-black-sn770-1tb", include_str!("../../../../profiles/wd-black-sn770-1tb.toml")),
    ("wd-black-sn850x-1tb", include_str!("../../../../profiles/wd-black-sn850x-1tb.toml")),
    ("wd-blue-sn550-1tb", include_str!("../../../../profiles/wd-blue-sn550-1tb.toml")),
    ("wd-blue-sn570-1tb", include_str!("../../../../profiles/wd-blue-sn570-1tb.toml")),
];

/// Names of the shipped profiles.
pub fn shipped_names() -> Vec<&'static str> {
    crate::profile_file::shipped::names(SHIPPED)
}

/// Text of a shipped profile.
pub fn shipped_text(name: &str) -> Option<&'static str> {
    crate::profile_file::shipped::text(SHIPPED, name)
}
