//! States whose checksums are valid but whose content is not: each is refused on load as
//! a corrupt state naming what is wrong (the checksum cannot catch a crafted file).

use crate::common::small_config;
use ssdtwin_core::ssd::{FillPattern, Ssd};
use std::io::{Read, Write};
use std::path::Path;

/// The saved state at `path` split into its magic and version, JSON header, and the rest
/// of the frame.
fn unpack(path: &Path) -> (Vec<u8>, serde_json::Value, Vec<u8>) {
    let bytes = std::fs::read(path).unwrap();
    let (head, frame) = bytes.split_at(12);
    let mut plain = Vec::new();
    lz4_flex::frame::FrameDecoder::new(frame).read_to_end(&mut plain).unwrap();
    let len = u64::from_le_bytes(plain[..8].try_into().unwrap()) as usize;
    let header = serde_json::from_slice(&plain[8..8 + len]).unwrap();
    (head.to_vec(), header, plain[8 + len..].to_vec())
}

/// Writes a state from its pieces, with valid block and content checksums.
fn pack(path: &Path, head: &[u8], header: &serde_json::Value, rest: &[u8]) {
    let header = serde_json::to_vec(header).unwrap();
    let mut out = head.to_vec();
    let info = lz4_flex::frame::FrameInfo::new().block_checksums(true).content_checksum(true);
    let mut frame = lz4_flex::frame::FrameEncoder::with_frame_info(info, &mut out);
    frame.write_all(&(header.len() as u64).to_le_bytes()).unwrap();
    frame.write_all(&header).unwrap();
    frame.write_all(rest).unwrap();
    frame.finish().unwrap();
    std::fs::write(path, out).unwrap();
}

/// Saves a filled small drive, changes its header with `edit`, and returns the load error.
fn load_after(name: &str, edit: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut dev = Ssd::new(small_config(48, 25.0, &["nand.pages_per_block=3"]));
    dev.fill(FillPattern::Random { percent: 80.0, sequential_passes: 1, overwrite_passes: 0.5, seed: 3, exact: true })
        .unwrap();
    dev.quiesce();
    let path = std::env::temp_dir().join(format!("ssdtwin-crafted-{name}-{}.state", std::process::id()));
    dev.save(&path).unwrap();
    let (head, mut header, rest) = unpack(&path);
    // The untouched pieces load: the packing itself is right.
    pack(&path, &head, &header, &rest);
    assert!(Ssd::load(&path).is_ok(), "{name}: a repacked state loads");
    edit(&mut header);
    pack(&path, &head, &header, &rest);
    let e = Ssd::load(&path).err().map(|e| e.to_string()).unwrap_or_default();
    std::fs::remove_file(&path).unwrap();
    e
}

#[test]
fn two_frontiers_on_one_superblock_are_refused() {
    let e = load_after("frontiers", |h| {
        let fronts = h["ftl"]["frontiers"].as_array_mut().unwrap();
        let open = fronts.iter().find_map(|f| f["sb"].as_u64()).expect("an open frontier");
        for f in fronts.iter_mut() {
            if f["sb"].is_null() {
                f["sb"] = open.into();
            }
        }
    });
    assert!(e.contains(": corrupt state: ") && e.contains("both write superblock"), "{e}");
}

#[test]
fn a_frontier_past_its_capacity_is_refused() {
    let e = load_after("capacity", |h| {
        let f = h["ftl"]["frontiers"].as_array_mut().unwrap().iter_mut().find(|f| !f["sb"].is_null()).unwrap();
        f["next"] = (f["capacity"].as_u64().unwrap() + 1).into();
    });
    assert!(e.contains(": corrupt state: ") && e.contains("frontier") && e.contains("is at unit"), "{e}");
}

#[test]
fn counters_that_disagree_with_the_map_are_refused() {
    let e = load_after("slc", |h| {
        let v = h["ftl"]["slc_valid"].as_u64().unwrap();
        h["ftl"]["slc_valid"] = (v + 1).into();
    });
    assert!(e.contains(": corrupt state: ") && e.contains("SLC holds"), "{e}");
}

#[test]
fn a_block_both_spare_and_in_service_is_refused() {
    let e = load_after("spare-twice", |h| {
        // Block 0 of the first plane serves superblock 0; claim it as a spare too.
        h["ftl"]["wear"]["spares"][0].as_array_mut().unwrap().push(0.into());
    });
    assert!(e.contains(": corrupt state: wear: block 0 is a spare and somewhere else too"), "{e}");
}

#[test]
fn a_retired_superblock_whose_blocks_still_serve_it_is_refused() {
    let e = load_after("retired", |h| {
        let sbs = &mut h["ftl"]["sbs"];
        let free = sbs["free"].as_array_mut().unwrap();
        let sb = free.pop().unwrap().as_u64().unwrap() as usize;
        sbs["state"][sb] = "Retired".into();
    });
    assert!(e.contains(": corrupt state: superblock ") && e.contains("is Retired but its blocks say otherwise"), "{e}");
}

#[test]
fn more_slc_erases_than_erases_is_refused() {
    let e = load_after("slc-erases", |h| {
        h["ftl"]["sbs"]["slc_erase_count"][0] = (h["ftl"]["sbs"]["erase_count"][0].as_u64().unwrap() + 1).into();
    });
    assert!(e.contains(": corrupt state: superblock 0 has more SLC erases than erases"), "{e}");
}

#[test]
fn a_kept_worn_block_that_is_not_bad_is_refused() {
    let e = load_after("kept", |h| {
        h["ftl"]["wear"]["kept"] = serde_json::json!([3]);
    });
    assert!(e.contains(": corrupt state: wear: block 3 is kept in service as worn but is not bad"), "{e}");
}

#[test]
fn a_superblock_retired_in_one_plane_only_is_refused() {
    let e = load_after("half-retired", |h| {
        h["ftl"]["wear"]["remapped"] = serde_json::json!([[1, u32::MAX]]);
    });
    assert!(e.contains(": corrupt state: wear: superblock 0 is retired in some planes and not others"), "{e}");
}

#[test]
fn a_state_that_decompresses_far_past_its_content_is_refused_without_buffering_it() {
    // The rest of the frame was read whole before the check (3.9 GiB for a crafted file);
    // now one byte past the content is enough to refuse it. 1 GiB of zeros packs into a few
    // MiB: buffered, it would take a gigabyte here.
    let mut dev = Ssd::new(small_config(48, 25.0, &["nand.pages_per_block=3"]));
    dev.fill(FillPattern::Sequential { percent: 10.0, command_bytes: 1 << 17 }).unwrap();
    dev.quiesce();
    let path = std::env::temp_dir().join(format!("ssdtwin-crafted-bomb-{}.state", std::process::id()));
    dev.save(&path).unwrap();
    let (head, header, rest) = unpack(&path);
    let header = serde_json::to_vec(&header).unwrap();
    let mut out = head.clone();
    let info = lz4_flex::frame::FrameInfo::new().content_checksum(true);
    let mut frame = lz4_flex::frame::FrameEncoder::with_frame_info(info, &mut out);
    frame.write_all(&(header.len() as u64).to_le_bytes()).unwrap();
    frame.write_all(&header).unwrap();
    frame.write_all(&rest).unwrap();
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..1024 {
        frame.write_all(&zeros).unwrap();
    }
    frame.finish().unwrap();
    std::fs::write(&path, out).unwrap();
    let e = Ssd::load(&path).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(e.contains("data after the end of the state"), "{e}");
    // A header claiming more than a header can be is refused before anything is read.
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.truncate(12);
    let info = lz4_flex::frame::FrameInfo::new().content_checksum(true);
    let mut frame = lz4_flex::frame::FrameEncoder::with_frame_info(info, &mut bytes);
    frame.write_all(&(1u64 << 40).to_le_bytes()).unwrap();
    frame.finish().unwrap();
    std::fs::write(&path, bytes).unwrap();
    let e = Ssd::load(&path).err().map(|e| e.to_string()).unwrap_or_default();
    std::fs::remove_file(&path).unwrap();
    assert!(e.contains("header length is implausible"), "{e}");
}

#[test]
fn host_counters_that_no_run_makes_are_refused() {
    let e = load_after("reads", |h| h["host"]["read_cmds"] = serde_json::json!(10));
    assert!(e.contains("counters that no run makes (0 bytes read by 10 commands of at least 512 bytes each)"), "{e}");
    let e = load_after("shutdowns", |h| h["host"]["unsafe_shutdowns"] = serde_json::json!(1_000));
    assert!(e.contains("1000 unsafe shutdowns in"), "{e}");
}
