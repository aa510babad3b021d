//! What a dataset stores, block by block: the sizes ZFS gives blocks, how much each
//! compresses, and the tables of block pointers the model keeps.
//!
//! * Data block sizes (`zfs_write`, `zfs_vnops.c`): a file that fits in one record gets one
//!   block of its size rounded up to 512 bytes; a larger one gets whole records, the tail
//!   included, and only compression squeezes the tail's zero padding out.
//! * Physical sizes (`zio_write_compress`): a block compresses to its contents divided by
//!   the data's ratio (zeros vanish); the result must save 12.5 % (rounded down to the
//!   pool's allocation unit) or the block is stored as is; a compressed size is rounded up
//!   to the pool's smallest allocation (`zio_roundup_alloc_size`); 112 bytes or less of a
//!   level-0 block without fill counts live in the block pointer (embedded data).
//! * Metadata (`dmu_write_policy`): always lz4; `redundant_metadata=all` gives it one copy
//!   more than data (capped at 3), `most` only to level ≥ 2 and metadata object types.
//! * Indirect blocks hold 1024 block pointers (128 KiB); a file of more than one block
//!   needs a level-1 block for every 1024, and more levels until one block is left for the
//!   dnode's one pointer. Dnodes live 32 to a 16 KiB block (512-byte dnodes) in the
//!   dataset's meta-dnode, itself a file of dnode blocks with indirect blocks of its own.
//! * Directories are ZAP objects: a *microzap* (one block of 64-byte entries, grown to a
//!   power of two) while it has under 2048 entries with names under 50 bytes, else a *fat
//!   ZAP* of 16 KiB leaves behind a header block.
//!
//! Tables are flat vectors indexed by typed numbers: 40 bytes per metadata block, 8 bytes per
//! copy of a data block of a tree, 32 bytes per record of the fio object.

use super::config::{Compression, DatasetConfig, Format, RedundantMetadata};
use super::tree::{FileClass, Tree};
use super::vdev::Dva;

/// zdb's index of each DMU object type the model writes (`dmu_ot[]` in `dmu.c`).
pub mod ot {
    /// "SPA space map"
    pub const SPACE_MAP: u8 = 8;
    /// "ZIL intent log"
    pub const INTENT_LOG: u8 = 9;
    /// "DMU dnode"
    pub const DNODE: u8 = 10;
    /// "DMU objset"
    pub const OBJSET: u8 = 11;
    /// "DSL dataset"
    pub const DSL_DATASET: u8 = 16;
    /// "ZFS plain file"
    pub const PLAIN_FILE: u8 = 19;
    /// "ZFS directory"
    pub const DIRECTORY: u8 = 20;
    /// Whether blocks of type `t` at level 0 are metadata (`DMU_OT_IS_METADATA`).
    pub fn is_metadata(t: u8) -> bool {
        t != PLAIN_FILE && t != INTENT_LOG
    }
}

/// A metadata block: up to three copies, sizes, type and level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MetaBlock {
    pub dva: [Dva; 3],
    pub psize: u32,
    pub lsize: u32,
    pub ot: u8,
    pub level: u8,
}

impl MetaBlock {
    pub(crate) fn new(ot: u8, level: u8) -> Self {
        MetaBlock { dva: [Dva::HOLE; 3], psize: 0, lsize: 0, ot, level }
    }
}

/// A physical size decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Psize {
    /// All zeros: no block at all.
    Hole,
    /// Kept inside the block pointer.
    Embedded,
    /// This many bytes are allocated and written.
    Bytes(u64),
}

/// The pool-wide allocation rules that shape physical sizes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sizing {
    /// The smallest allocation of any top-level vdev (`spa_min_alloc`).
    pub min_alloc: u64,
    /// Their greatest common divisor (`spa_gcd_alloc`).
    pub gcd_alloc: u64,
    pub embedded_max: u64,
}

impl Sizing {
    /// `zio_write_compress` for a block of `lsize` bytes whose contents compress to
    /// `compressed` bytes; `embeddable` for level-0 blocks without fill counts.
    pub(crate) fn psize(&self, lsize: u64, compressed: u64, compress: bool, embeddable: bool) -> Psize {
        if !compress {
            return Psize::Bytes(lsize);
        }
        if compressed == 0 {
            return Psize::Hole;
        }
        if embeddable && compressed <= self.embedded_max {
            return Psize::Embedded;
        }
        let mut d_len = lsize - (lsize >> 3);
        d_len -= d_len % self.gcd_alloc;
        if d_len < self.min_alloc || compressed > d_len {
            return Psize::Bytes(lsize);
        }
        let rounded = if compressed > self.min_alloc {
            compressed.div_ceil(self.gcd_alloc) * self.gcd_alloc
        } else {
            self.min_alloc
        };
        Psize::Bytes(if rounded >= lsize { lsize } else { rounded })
    }
}

/// Blocks of a file of `bytes`: how many, and their logical size.
pub(crate) fn file_blocks(bytes: u64, recordsize: u64) -> (u64, u64) {
    if bytes == 0 {
        (0, 0)
    } else if bytes <= recordsize {
        (1, recordsize.min(bytes.div_ceil(512) * 512))
    } else {
        (bytes.div_ceil(recordsize), recordsize)
    }
}

/// Blocks per level above level 0 for `blocks` level-0 blocks, up to the level whose one
/// block the dnode points to (`fanout` pointers per indirect block).
pub(crate) fn indirect_levels(blocks: u64, fanout: u64, out: &mut Vec<u64>) {
    out.clear();
    let mut n = blocks;
    while n > 1 {
        n = n.div_ceil(fanout);
        out.push(n);
    }
}

/// Copies of a block (`dmu_write_policy`): data gets the dataset's `copies`, metadata more.
pub(crate) fn copies(ds: &DatasetConfig, ot: u8, level: u8) -> usize {
    let base = usize::from(ds.copies);
    let md = level > 0 || ot::is_metadata(ot);
    let extra = match ds.redundant_metadata {
        _ if !md => 0,
        RedundantMetadata::All => 1,
        RedundantMetadata::Most => usize::from(level >= 2 || ot::is_metadata(ot)),
        RedundantMetadata::Some => usize::from(ot == ot::DNODE || ot == ot::OBJSET),
        RedundantMetadata::None => 0,
    };
    (base + extra).min(3)
}

/// What the dataset's compression leaves of `content` bytes of class `class` data.
pub(crate) fn compressed_data(ds: &DatasetConfig, class: &FileClass, content: u64) -> (bool, u64) {
    let ratio = match ds.compression {
        Compression::Off => return (false, content),
        Compression::Zle => 1.0,
        Compression::Lz4 => class.lz4_ratio,
        Compression::Zstd => class.zstd_ratio,
        Compression::Gzip => class.gzip_ratio,
    };
    (true, (content as f64 / ratio).ceil() as u64)
}

/// The shape of a directory's ZAP with `entries` entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ZapShape {
    /// One block of this many bytes.
    Micro(u64),
    /// A header block and this many leaves.
    Fat(u64),
}

impl ZapShape {
    pub(crate) fn of(entries: u64, long_names: bool, f: &Format) -> ZapShape {
        let max_entries = f.microzap_max_bytes / f.microzap_entry_bytes - 1;
        if !long_names && entries <= max_entries {
            let bytes = (f.microzap_entry_bytes * (entries + 1)).next_power_of_two().max(512);
            ZapShape::Micro(bytes)
        } else {
            let per_leaf = ((f.fat_zap_leaf_entries as f64 * f.fat_zap_fill) as u64).max(1);
            ZapShape::Fat(entries.div_ceil(per_leaf).max(1))
        }
    }
    /// Blocks: the microzap's one, or header and leaves.
    pub(crate) fn blocks(self) -> u64 {
        match self {
            ZapShape::Micro(_) => 1,
            ZapShape::Fat(leaves) => leaves + 1,
        }
    }
}

/// lz4 bytes and logical size of ZAP block `i` of a directory with `entries` entries.
pub(crate) fn zap_block(shape: ZapShape, i: u64, entries: u64, f: &Format) -> (u64, u64) {
    match shape {
        ZapShape::Micro(bytes) => (bytes, f.zap_entry_lz4_bytes * (entries + 1)),
        // The header holds the pointer table: 8 bytes per leaf, mostly alike.
        ZapShape::Fat(leaves) if i == 0 => (f.fat_zap_leaf_bytes, 128 + 4 * leaves),
        // A leaf's entries take three 24-byte chunks each: about twice a microzap entry.
        ZapShape::Fat(leaves) => (f.fat_zap_leaf_bytes, 2 * f.zap_entry_lz4_bytes * entries.div_ceil(leaves)),
    }
}

/// The file tree of a dataset, as created so far.
#[derive(Clone, Debug)]
pub(crate) struct TreeState {
    pub tree: Tree,
    /// Object numbers, assigned in creation order.
    pub file_object: Vec<u32>,
    pub dir_object: Vec<u32>,
    /// Each file's first data block in `data` (a stride of `copies` DVAs per block).
    pub data_base: Vec<u64>,
    /// Each file's first indirect block in the dataset's meta table.
    pub ind_base: Vec<u32>,
    /// Each directory's ZAP blocks in the meta table (room for its final shape), entries so far.
    pub zap_base: Vec<u32>,
    pub dir_entries: Vec<u32>,
    pub dir_long_names: Vec<bool>,
    /// The txg that last dirtied each directory's ZAP.
    pub dir_dirty: Vec<u64>,
    pub data: Vec<Dva>,
    pub copies: usize,
    /// Creation progress: directories made, files made, blocks of the file being written.
    pub created_dirs: u32,
    pub created_files: u32,
    pub written_blocks: u64,
    /// Files read since their last change (relatime updates only the first read).
    pub atime_fresh: Vec<bool>,
}

/// A record of the fio object.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Record {
    pub dva: [Dva; 3],
    pub psize: u32,
    /// The txg that dirtied it (0: clean).
    pub dirty_txg: u64,
    /// Already written in place by the intent log (`WR_INDIRECT`): the txg only updates
    /// its parent.
    pub logged: bool,
}

impl Record {
    const EMPTY: Record = Record { dva: [Dva::HOLE; 3], psize: 0, dirty_txg: 0, logged: false };
}

/// The byte space fio's files live in: one object of `recordsize` records, the records kept
/// in pages of one indirect block's worth, allocated when first written.
#[derive(Clone, Debug, Default)]
pub(crate) struct FlatObject {
    pub pages: Vec<Option<Box<[Record]>>>,
    /// Indirect blocks per level (level 1 first): meta-table indices, `u32::MAX` for none.
    pub levels: Vec<Vec<u32>>,
}

impl FlatObject {
    pub(crate) fn record(&self, r: u64, fanout: u64) -> Option<&Record> {
        self.pages.get((r / fanout) as usize)?.as_ref().map(|p| &p[(r % fanout) as usize])
    }
    pub(crate) fn record_mut(&mut self, r: u64, fanout: u64) -> &mut Record {
        let page = (r / fanout) as usize;
        if self.pages.len() <= page {
            self.pages.resize(page + 1, None);
        }
        let p = self.pages[page].get_or_insert_with(|| vec![Record::EMPTY; fanout as usize].into_boxed_slice());
        &mut p[(r % fanout) as usize]
    }
}

/// The first object number a tree uses (after the ZPL's own objects and fio's object).
pub(crate) const FIRST_TREE_OBJECT: u32 = 64;
/// fio's object.
pub(crate) const FLAT_OBJECT: u32 = 2;

/// A dataset at run time.
#[derive(Clone, Debug)]
pub(crate) struct DatasetState {
    pub cfg: DatasetConfig,
    pub meta: Vec<MetaBlock>,
    /// Per dnode block: meta-table index, dnodes in use, dnodes with a block pointer, and
    /// the txg that last dirtied it.
    pub dnode_meta: Vec<u32>,
    pub dnode_used: Vec<u8>,
    pub dnode_bps: Vec<u8>,
    pub dnode_dirty: Vec<u64>,
    /// The meta-dnode's indirect blocks per level (level 1 first).
    pub mdn_levels: Vec<Vec<u32>>,
    pub objset: u32,
    pub flat: FlatObject,
    pub tree: Option<Box<TreeState>>,
    /// Objects in use (the next one to allocate).
    pub next_object: u32,
}

impl DatasetState {
    pub(crate) fn new(cfg: DatasetConfig, format: &Format) -> Self {
        let mut d = DatasetState {
            cfg,
            meta: Vec::new(),
            dnode_meta: Vec::new(),
            dnode_used: Vec::new(),
            dnode_bps: Vec::new(),
            dnode_dirty: Vec::new(),
            mdn_levels: Vec::new(),
            objset: 0,
            flat: FlatObject::default(),
            tree: None,
            next_object: FIRST_TREE_OBJECT,
        };
        d.objset = d.push_meta(MetaBlock::new(ot::OBJSET, 0));
        // The ZPL's own objects (master node, SA tables, delete queue, root directory) and
        // fio's object fill the first dnode blocks; the root directory has a block.
        let per_block = d.dnodes_per_block(format);
        for o in 0..FIRST_TREE_OBJECT {
            d.use_dnode(o, o == FLAT_OBJECT || o == FIRST_TREE_OBJECT - 1, per_block);
        }
        d
    }

    pub(crate) fn dnodes_per_block(&self, f: &Format) -> u32 {
        (f.dnode_block_bytes / self.cfg.dnode_bytes).max(1) as u32
    }

    pub(crate) fn push_meta(&mut self, b: MetaBlock) -> u32 {
        self.meta.push(b);
        (self.meta.len() - 1) as u32
    }

    /// Marks object `object` in use (with a block pointer or not); returns its dnode block.
    pub(crate) fn use_dnode(&mut self, object: u32, has_bp: bool, per_block: u32) -> u32 {
        let b = object / per_block;
        while self.dnode_meta.len() <= b as usize {
            let m = self.push_meta(MetaBlock::new(ot::DNODE, 0));
            self.dnode_meta.push(m);
            self.dnode_used.push(0);
            self.dnode_bps.push(0);
            self.dnode_dirty.push(0);
        }
        self.dnode_used[b as usize] += 1;
        self.dnode_bps[b as usize] += u8::from(has_bp);
        b
    }

    /// The meta-table index of indirect block `index` at `level` (from 1) of the meta-dnode,
    /// made if new.
    pub(crate) fn mdn_indirect(&mut self, level: usize, index: usize) -> u32 {
        while self.mdn_levels.len() < level {
            self.mdn_levels.push(Vec::new());
        }
        if self.mdn_levels[level - 1].len() <= index {
            self.mdn_levels[level - 1].resize(index + 1, u32::MAX);
        }
        if self.mdn_levels[level - 1][index] == u32::MAX {
            let m = self.push_meta(MetaBlock::new(ot::DNODE, level as u8));
            self.mdn_levels[level - 1][index] = m;
        }
        self.mdn_levels[level - 1][index]
    }

    /// The same for fio's object.
    pub(crate) fn flat_indirect(&mut self, level: usize, index: usize) -> u32 {
        while self.flat.levels.len() < level {
            self.flat.levels.push(Vec::new());
        }
        if self.flat.levels[level - 1].len() <= index {
            self.flat.levels[level - 1].resize(index + 1, u32::MAX);
        }
        if self.flat.levels[level - 1][index] == u32::MAX {
            let m = self.push_meta(MetaBlock::new(ot::PLAIN_FILE, level as u8));
            self.flat.levels[level - 1][index] = m;
        }
        self.flat.levels[level - 1][index]
    }

    /// Memory the dataset's tables hold, bytes.
    pub(crate) fn memory_bytes(&self) -> usize {
        let mut b = self.meta.capacity() * std::mem::size_of::<MetaBlock>()
            + self.dnode_meta.capacity() * 4
            + self.dnode_used.capacity() * 2
            + self.dnode_dirty.capacity() * 8
            + self.mdn_levels.iter().map(|l| l.capacity() * 4).sum::<usize>()
            + self.flat.pages.iter().flatten().map(|p| p.len() * std::mem::size_of::<Record>()).sum::<usize>();
        if let Some(t) = &self.tree {
            b += t.tree.memory_bytes()
                + (t.file_object.capacity()
                    + t.dir_object.capacity()
                    + t.ind_base.capacity()
                    + t.zap_base.capacity()
                    + t.dir_entries.capacity())
                    * 4
                + t.data_base.capacity() * 8
                + t.dir_dirty.capacity() * 8
                + t.dir_long_names.capacity()
                + t.atime_fresh.capacity()
                + t.data.capacity() * 8;
        }
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sizing() -> Sizing {
        Sizing { min_alloc: 4096, gcd_alloc: 4096, embedded_max: 112 }
    }

    #[test]
    fn block_sizes_follow_zfs_write() {
        assert_eq!(file_blocks(0, 131_072), (0, 0));
        assert_eq!(file_blocks(1000, 131_072), (1, 1024), "one block, rounded up to 512 bytes");
        assert_eq!(file_blocks(131_072, 131_072), (1, 131_072));
        assert_eq!(file_blocks(132_096, 131_072), (2, 131_072), "129 KiB: two whole records, the tail included");
    }

    #[test]
    fn compression_must_save_an_eighth_and_rounds_to_the_allocation_unit() {
        let s = sizing();
        assert_eq!(s.psize(131_072, 20_000, true, true), Psize::Bytes(20_480));
        assert_eq!(s.psize(131_072, 120_000, true, true), Psize::Bytes(131_072), "saves less than 12.5 %");
        assert_eq!(s.psize(131_072, 20_000, false, true), Psize::Bytes(131_072), "compression off");
        assert_eq!(s.psize(4096, 3000, true, true), Psize::Bytes(4096), "no saving below one allocation unit");
        assert_eq!(s.psize(1024, 100, true, true), Psize::Embedded);
        assert_eq!(s.psize(16_384, 100, true, false), Psize::Bytes(4096), "dnode blocks are never embedded");
        // The tail of a 129 KiB incompressible file: 1 KiB of data in a 128 KiB record.
        assert_eq!(s.psize(131_072, 1024, true, false), Psize::Bytes(4096));
    }

    #[test]
    fn metadata_gets_one_more_copy_with_redundant_metadata_all() {
        let mut ds = DatasetConfig {
            name: String::new(),
            recordsize_bytes: 131_072,
            compression: Compression::Lz4,
            special_small_blocks_bytes: 0,
            redundant_metadata: RedundantMetadata::All,
            copies: 1,
            atime: true,
            relatime: true,
            dnode_bytes: 512,
        };
        assert_eq!(copies(&ds, ot::PLAIN_FILE, 0), 1);
        assert_eq!(copies(&ds, ot::PLAIN_FILE, 1), 2);
        assert_eq!(copies(&ds, ot::DNODE, 0), 2);
        ds.redundant_metadata = RedundantMetadata::Most;
        assert_eq!(copies(&ds, ot::PLAIN_FILE, 1), 1, "most: level-1 blocks of files get no extra copy");
        assert_eq!(copies(&ds, ot::PLAIN_FILE, 2), 2);
        ds.copies = 3;
        ds.redundant_metadata = RedundantMetadata::All;
        assert_eq!(copies(&ds, ot::DNODE, 0), 3, "capped at three DVAs");
    }

    #[test]
    fn directories_turn_fat_beyond_a_full_microzap() {
        let f = Format::default();
        assert_eq!(ZapShape::of(0, false, &f), ZapShape::Micro(512));
        assert_eq!(ZapShape::of(1000, false, &f), ZapShape::Micro(65_536));
        assert_eq!(ZapShape::of(2047, false, &f), ZapShape::Micro(131_072));
        assert!(matches!(ZapShape::of(2048, false, &f), ZapShape::Fat(_)));
        assert!(matches!(ZapShape::of(3, true, &f), ZapShape::Fat(1)), "a long name makes it fat");
        let mut levels = Vec::new();
        indirect_levels(1, 1024, &mut levels);
        assert!(levels.is_empty(), "one block: the dnode points at it");
        indirect_levels(2_000_000, 1024, &mut levels);
        assert_eq!(levels, vec![1954, 2, 1]);
    }
}
