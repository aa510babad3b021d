//! Drive profiles: each check and default, through `build` as users reach it.

use super::*;
use crate::ftl::WearLevelling;
use crate::nand::CellMode;

fn shipped_with(overrides: &[&str]) -> Result<DeviceConfig, ProfileError> {
    let mut p = load_profile("generic-tlc-1tb").unwrap();
    apply_overrides(&mut p, &overrides.iter().map(ToString::to_string).collect::<Vec<_>>())?;
    build(&p)
}

#[test]
fn every_shipped_profile_builds() {
    for name in shipped_names() {
        let p = load_profile(name).unwrap();
        build(&p).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn reported_only_identity_fields_are_optional() {
    let c = shipped_with(&[]).unwrap();
    assert_eq!((c.identity.wctemp_kelvin, c.identity.cctemp_kelvin), (None, None));
    assert!(c.identity.power_states.is_empty());
    let c = shipped_with(&[
        "identity.wctemp_kelvin=343",
        "identity.cctemp_kelvin=358",
        "identity.power_states=[{max_power_mw=8000}, {max_power_mw=5, non_operational=true, exit_latency_us=1200}]",
    ])
    .unwrap();
    assert_eq!((c.identity.wctemp_kelvin, c.identity.cctemp_kelvin), (Some(343), Some(358)));
    let ps = &c.identity.power_states;
    assert_eq!(
        ps[1],
        PowerStateSection { max_power_mw: 5, non_operational: true, entry_latency_us: 0, exit_latency_us: 1200 }
    );
}

#[test]
fn warning_temperature_above_critical_is_refused() {
    let e = shipped_with(&["identity.wctemp_kelvin=360", "identity.cctemp_kelvin=358"]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "shipped:generic-tlc-1tb: identity.wctemp_kelvin = 360: at most identity.cctemp_kelvin (358)"
    );
}

#[test]
fn power_beyond_the_identify_field_is_refused() {
    assert!(shipped_with(&["identity.power_states=[{max_power_mw=6553}, {max_power_mw=655350}]"]).is_ok());
    let e = shipped_with(&["identity.power_states=[{max_power_mw=8001}]"]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "shipped:generic-tlc-1tb: identity.power_states[0].max_power_mw = 8001: \
         up to 6553, or a multiple of 10 up to 655350"
    );
}

#[test]
fn nvme_versions_up_to_2_9_9_are_accepted() {
    for (text, ver) in [("1.0", 0x1_00_00), ("2.1", 0x2_01_00), ("2.9.9", 0x2_09_09)] {
        let c = shipped_with(&[&format!("identity.nvme_version=\"{text}\"")]).unwrap();
        assert_eq!(c.identity.nvme_version, ver, "{text}");
    }
    for text in ["3.0", "0.9", "1.10", "2.0.10", "1"] {
        let e = shipped_with(&[&format!("identity.nvme_version=\"{text}\"")]).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "shipped:generic-tlc-1tb: identity.nvme_version = \"{text}\": \
                 \"major.minor[.tertiary]\" with major 1 or 2, minor and tertiary 0 to 9"
            )
        );
    }
}

#[test]
fn map_cell_may_be_any_mode_up_to_the_native_one() {
    let tables = "nand.mlc={t_read_us=40.0, t_prog_us=400.0, t_erase_us=3000.0}";
    let c = shipped_with(&[tables, "map_cache.map_cell=mlc"]).unwrap();
    assert_eq!(c.map_cache.map_mode, CellMode::Mlc);
    let c = shipped_with(&["map_cache.map_cell=tlc"]).unwrap();
    assert_eq!(c.map_cache.map_mode, CellMode::Tlc);
    let allowed = "a mode with no more bits per cell than nand.cell (tlc)";
    let e = shipped_with(&["map_cache.map_cell=qlc"]).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("shipped:generic-tlc-1tb: map_cache.map_cell = \"qlc\": {allowed}, with its timings in [nand.qlc]")
    );
    // MLC has no more bits than TLC, but the profile gives no MLC timings.
    let e = shipped_with(&["map_cache.map_cell=mlc"]).unwrap_err();
    assert!(e.to_string().ends_with(&format!("{allowed}, with its timings in [nand.mlc]")), "{e}");
}

#[test]
fn urgent_fold_watermark_is_gib_of_cached_data() {
    let p = load_profile("wd-black-256").unwrap();
    let with = |v: &str| {
        let mut p = p.clone();
        apply_overrides(&mut p, &[format!("slc_cache.fold_urgent_gib={v}")])?;
        build(&p)
    };
    assert_eq!(with("1.0").unwrap().slc.fold_urgent_units, (1 << 30) / 4096);
    let e = with("-1.0").unwrap_err();
    assert_eq!(e.to_string(), "shipped:wd-black-256: slc_cache.fold_urgent_gib = -1: allowed 0 to 1e6 GiB");
}

#[test]
fn endurance_defaults_follow_the_cell_mode() {
    let c = shipped_with(&[]).unwrap();
    let e = &c.endurance;
    assert_eq!(e.rated_pe_cycles[CellMode::Tlc.index()], 3_000);
    // The SLC mode of a TLC die: ten times the TLC rating.
    assert_eq!(e.rated_pe_cycles[CellMode::Slc.index()], 30_000);
    assert_eq!((e.levelling, e.spare_blocks_per_plane, e.spare_threshold_pct), (WearLevelling::Dynamic, 0, 10));
    assert!((e.block_spread - 0.1).abs() < 1e-12);
    // The drive needs its namespace's superblocks and the reserve beyond them.
    let ns_sb = c.logical_units.div_ceil(u64::from(c.geometry.sb_units())) as u32;
    assert!(e.min_superblocks > ns_sb && e.min_superblocks <= c.geometry.superblocks(), "{}", e.min_superblocks);
    let c = shipped_with(&["endurance.qlc_pe_cycles=600", "ftl.wear_levelling=static"]).unwrap();
    assert_eq!(
        (c.endurance.rated_pe_cycles[CellMode::Qlc.index()], c.endurance.levelling),
        (600, WearLevelling::Static)
    );
}

#[test]
fn a_superblock_too_large_to_address_is_refused() {
    let o = [
        "nand.cell=slc",
        "nand.pages_per_block=65536",
        "nand.channels=64",
        "nand.dies_per_channel=64",
        "nand.planes=16",
        "nand.page_bytes=65536",
    ];
    let e = shipped_with(&o).unwrap_err().to_string();
    assert!(e.contains("nand.pages_per_block") && e.contains("68719476736"), "{e}");
}

#[test]
fn bad_endurance_values_name_the_field() {
    let e = shipped_with(&["endurance.tlc_pe_cycles=0"]).unwrap_err();
    assert_eq!(e.to_string(), "shipped:generic-tlc-1tb: endurance.tlc_pe_cycles = 0: allowed 1 to 10000000");
    let e = shipped_with(&["endurance.rated_tb_written=-1.0"]).unwrap_err();
    assert_eq!(e.to_string(), "shipped:generic-tlc-1tb: endurance.rated_tb_written = -1: a positive number up to 1e9");
    let e = shipped_with(&["ftl.wear_levelling=round-robin"]).unwrap_err();
    assert!(e.to_string().ends_with("ftl.wear_levelling = \"round-robin\": allowed fifo, dynamic, static"), "{e}");
    let e = shipped_with(&["endurance.block_spread_pct=120"]).unwrap_err();
    assert!(e.to_string().ends_with("endurance.block_spread_pct = 120: allowed 0 to 100"), "{e}");
    let e = shipped_with(&["endurance.uber_per_bit=0.001"]).unwrap_err();
    assert!(
        e.to_string().ends_with("endurance.uber_per_bit = 0.001: allowed 0 to 3.052e-5 (one error per 4 KiB read)"),
        "{e}"
    );
    let e = shipped_with(&["endurance.uber_tenfold_pct=0"]).unwrap_err();
    assert!(e.to_string().ends_with("endurance.uber_tenfold_pct = 0: allowed above 0 up to 1000"), "{e}");
}

#[test]
fn the_bit_error_law_defaults_to_a_client_drive_and_takes_the_profile_s() {
    let law = shipped_with(&[]).unwrap().endurance.bit_errors;
    assert_eq!((law.uber_per_bit, law.tenfold_life), (1e-15, 0.1));
    let law =
        shipped_with(&["endurance.uber_per_bit=1e-16", "endurance.uber_tenfold_pct=25"]).unwrap().endurance.bit_errors;
    assert_eq!((law.uber_per_bit, law.tenfold_life), (1e-16, 0.25));
}

#[test]
fn thermal_defaults_and_throttle_budgets_become_die_caps() {
    let c = shipped_with(&["power.die_program_w=0.1"]).unwrap();
    let t = &c.thermal;
    assert_eq!((t.warning_k, t.critical_k), (343.0, 358.0));
    assert!((t.ambient_k - 298.15).abs() < 1e-9 && (t.resistance_k_per_w - 12.0).abs() < 1e-12);
    assert_eq!(c.hctm_range_kelvin, None);
    // 32 dies at 0.1 W each, 1.5 W idle, 0.5 W per link direction: at most 5.7 W.
    // Light: 4.275 W leaves (4.275 − 2.5) / 0.1 = 17 dies; heavy 2.85 W: 3; critical
    // 1.425 W: less than idle, so one.
    assert_eq!(t.die_caps, [u32::MAX, 17, 3, 1]);
    // Airflow of four times the doubling speed triples the conductance.
    let c = shipped_with(&["thermal.airflow_m_per_s=2.0"]).unwrap();
    assert!((c.thermal.resistance_k_per_w - 4.0).abs() < 1e-12);
    assert_eq!(c.power.states.len(), 1);
    assert!((c.power.states[0].max_power_w - 6.0).abs() < 1e-12);
}

#[test]
fn host_thresholds_need_hctm_and_order() {
    let e = shipped_with(&["thermal.hctm_tmt1_kelvin=330"]).unwrap_err();
    assert!(e.to_string().ends_with("thermal.hctm_tmt1_kelvin = 330: 0: the controller has no HCTM (give thermal.hctm_min_kelvin and hctm_max_kelvin)"), "{e}");
    let range = ["thermal.hctm_min_kelvin=273", "thermal.hctm_max_kelvin=358"];
    let e = shipped_with(&[range[0], range[1], "thermal.hctm_tmt1_kelvin=400"]).unwrap_err();
    assert!(
        e.to_string().ends_with("thermal.hctm_tmt1_kelvin = 400: 0 (off) or 273 to 358 kelvin (MNTMT to MXTMT)"),
        "{e}"
    );
    let e = shipped_with(&[range[0], range[1], "thermal.hctm_tmt1_kelvin=340", "thermal.hctm_tmt2_kelvin=330"])
        .unwrap_err();
    assert!(e.to_string().ends_with("thermal.hctm_tmt1_kelvin = 340: below hctm_tmt2_kelvin (330)"), "{e}");
    let c = shipped_with(&[range[0], range[1], "thermal.hctm_tmt1_kelvin=330"]).unwrap();
    assert_eq!((c.thermal.tmt1_k, c.thermal.tmt2_k, c.hctm_range_kelvin), (Some(330.0), None, Some((273, 358))));
    let e = shipped_with(&["identity.power_states=[{max_power_mw=5, non_operational=true}]"]).unwrap_err();
    assert!(
        e.to_string().ends_with("identity.power_states[0].non_operational = true: false: state 0 is where I/O runs"),
        "{e}"
    );
    let e = shipped_with(&["thermal.heat_capacity_j_per_k=0"]).unwrap_err();
    assert!(e.to_string().ends_with("thermal.heat_capacity_j_per_k = 0: greater than 0, at most 1000000 J/K"), "{e}");
}

#[test]
fn zero_dies_is_refused() {
    let e = shipped_with(&["nand.dies_per_channel=0"]).unwrap_err();
    assert_eq!(e.to_string(), "shipped:generic-tlc-1tb: nand.dies_per_channel = 0: allowed 1 to 64");
}

#[test]
fn page_size_must_be_a_multiple_of_4k() {
    let e = shipped_with(&["nand.page_bytes=6000"]).unwrap_err();
    assert!(e.to_string().contains("nand.page_bytes = 6000: a multiple of 4096"), "{e}");
}

#[test]
fn overprovisioning_of_100_percent_is_refused() {
    let e = shipped_with(&["identity.capacity_bytes=0", "ftl.overprovisioning_pct=100"]).unwrap_err();
    // capacity_bytes=0 is still "set": remove it by building a table without it.
    assert!(e.to_string().contains("ftl.overprovisioning_pct"), "{e}");
    let mut p = load_profile("generic-tlc-1tb").unwrap();
    p.table["identity"].as_table_mut().unwrap().remove("capacity_bytes");
    apply_overrides(&mut p, &["ftl.overprovisioning_pct=100".into()]).unwrap();
    let e = build(&p).unwrap_err();
    assert_eq!(e.to_string(), "shipped:generic-tlc-1tb: ftl.overprovisioning_pct = 100: allowed 0 to less than 100");
}

#[test]
fn unknown_fields_and_bad_types_name_the_place() {
    let e = shipped_with(&["nand.chanels=4"]).unwrap_err();
    assert!(
        e.to_string().starts_with("shipped:generic-tlc-1tb: [nand]: unknown field `chanels`, expected one of"),
        "{e}"
    );
    let text = load_profile("generic-tlc-1tb").unwrap().to_toml().replace("channels = 8", "chanels = 8");
    let e = build(&LoadedProfile::from_str(&text, "my.toml", "my").unwrap()).unwrap_err();
    assert!(e.to_string().starts_with("my.toml: line "), "{e}");
    assert!(e.to_string().contains("unknown field `chanels`"), "{e}");
    let e = shipped_with(&["nand.channels=\"eight\""]).unwrap_err();
    assert!(e.to_string().contains("channels"), "{e}");
    assert!(!e.to_string().contains('\n'));
}

#[test]
fn unknown_choice_lists_what_is_allowed() {
    let e = shipped_with(&["ftl.gc_policy=lru"]).unwrap_err();
    assert!(e.to_string().ends_with("ftl.gc_policy = \"lru\": allowed greedy, cost-benefit"), "{e}");
}

#[test]
fn capacity_beyond_the_nand_is_refused() {
    let e = shipped_with(&["identity.capacity_bytes=2000398934016"]).unwrap_err();
    assert!(e.to_string().contains("may hold at most"), "{e}");
}

#[test]
fn drives_beyond_two_to_the_32_units_build_up_to_64_tib_of_nand() {
    // The generic drive with 32 times the blocks: 32 TiB of NAND behind 30.72 TB.
    let c = shipped_with(&["nand.blocks_per_plane=29120", "identity.capacity_bytes=30720000000000"]).unwrap();
    assert_eq!(c.logical_units, 30_720_000_000_000 / 4096);
    assert!(c.geometry.total_units() > 1 << 32);
    // 4 B per logical unit and its 2 high bits, 4 B per physical unit: ~62 GiB.
    let l = c.logical_units;
    let expected = 4 * l + l.div_ceil(4) + 4 * c.geometry.total_units();
    let estimate = model_memory_bytes(&c, false);
    assert!(estimate >= expected && estimate < expected + (8 << 20), "{estimate} vs {expected}");
    let e = shipped_with(&["nand.blocks_per_plane=65536"]).unwrap_err();
    assert!(e.to_string().contains("at most 2^34 - 1 map units of 4 KiB (64 TiB)"), "{e}");
}

#[test]
fn unknown_profile_lists_shipped_ones() {
    let e = load_profile("no-such-drive").unwrap_err();
    assert!(e.to_string().contains("generic-tlc-1tb"), "{e}");
}

/// `generic-tlc-1tb` with its `[link]` replaced by `link`.
fn generic_with_link(link: &str) -> Result<DeviceConfig, ProfileError> {
    let text = load_profile("generic-tlc-1tb").unwrap().text().unwrap().to_string();
    let start = text.find("[link]").unwrap();
    let end = start + 1 + text[start + 1..].find("\n[").unwrap();
    let text = format!("{}{link}\n{}", &text[..start], &text[end..]);
    build(&LoadedProfile::from_str(&text, "sata.toml", "sata").unwrap())
}

#[test]
fn a_sata_link_has_one_ncq_queue_at_the_sata_line_rate() {
    let c = generic_with_link("[link]\ntransport = \"sata\"\nio_queues = 1\nqueue_depth = 33\n").unwrap();
    assert_eq!(c.link.bus, crate::nvme::Bus::Sata);
    // 6 Gb/s, 8b/10b: 600 MB/s, less 24 bytes of framing per 8192-byte data FIS.
    assert_eq!(c.link.bytes_per_sec, (600e6 * 8192.0 / 8216.0) as u64);
    assert_eq!(c.link.max_outstanding(), 32);
    let c = generic_with_link("[link]\ntransport = \"sata\"\nsata_gen = 1\nio_queues = 1\nqueue_depth = 33\n").unwrap();
    assert_eq!(c.link.bytes_per_sec, (150e6 * 8192.0 / 8216.0) as u64);
}

#[test]
fn a_sata_link_refuses_pcie_fields_and_nvme_queues() {
    let e =
        generic_with_link("[link]\ntransport = \"sata\"\npcie_gen = 3\nio_queues = 1\nqueue_depth = 33\n").unwrap_err();
    assert!(e.to_string().contains("link.pcie_gen = given: only with transport = \"pcie\""), "{e}");
    let e = generic_with_link("[link]\ntransport = \"sata\"\n").unwrap_err();
    assert!(e.to_string().contains("SATA has io_queues = 1 and at most 33 entries"), "{e}");
    let e = generic_with_link("[link]\npcie_lanes = 4\n").unwrap_err();
    assert!(e.to_string().contains("link.pcie_gen is required (a PCIe link)"), "{e}");
    let e = generic_with_link("[link]\ntransport = \"usb\"\npcie_gen = 3\npcie_lanes = 4\n").unwrap_err();
    assert!(e.to_string().contains("line 24, column 13: unknown variant `usb`, expected `pcie` or `sata`"), "{e}");
}
