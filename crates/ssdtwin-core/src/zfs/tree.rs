//! File trees: what a pool stores, described compactly.
//!
//! A tree is generated from a count, a size distribution and a directory fan-out, or read
//! from a directory scan (`find DIR -type f -printf '%s %p\n'`). Files and directories are
//! numbered in the order a copy creates them (`cp -r`, `rsync`): depth first, each
//! directory made, then its files, then its subdirectories. So a directory's files are one
//! contiguous run of file numbers, and object numbers follow the same order.
//!
//! Storage is struct-of-arrays, 14 bytes per file and 22 per directory, with no name
//! strings: only name lengths matter to ZFS (microzap entries hold names under 50 bytes).
//! Each file belongs to a [`FileClass`], which says how well its data compresses.

use super::config::parse_size;
use super::error::OpError;
use crate::engine::SimRng;
use std::collections::HashMap;

/// How well a kind of data compresses: physical size = logical size / ratio, per algorithm.
#[derive(Clone, Debug, PartialEq)]
pub struct FileClass {
    /// Name (`text`, `media`).
    pub name: String,
    /// Share of generated files in this class.
    pub share: f64,
    /// File extensions of this class in a directory scan (lower case, no dot).
    pub extensions: Vec<String>,
    /// lz4's ratio on this data.
    pub lz4_ratio: f64,
    /// zstd's ratio.
    pub zstd_ratio: f64,
    /// gzip's ratio.
    pub gzip_ratio: f64,
}

impl FileClass {
    /// Parses `NAME[=EXT/EXT…]:SHARE:LZ4[:ZSTD[:GZIP]]`, e.g. `text=txt/c/html:0.4:2.1:3.0`.
    pub fn parse(text: &str) -> Result<FileClass, OpError> {
        let bad = || OpError::Parameter {
            field: "--classes".into(),
            value: text.into(),
            allowed: "NAME[=EXT/EXT...]:SHARE:LZ4_RATIO[:ZSTD_RATIO[:GZIP_RATIO]], ratios at least 1, e.g. \
                      text=txt/html:0.4:2.1:3.0"
                .into(),
        };
        let parts: Vec<&str> = text.split(':').collect();
        if !(3..=5).contains(&parts.len()) {
            return Err(bad());
        }
        let (name, extensions) = match parts[0].split_once('=') {
            Some((n, e)) => {
                (n, e.split('/').map(|x| x.trim().to_ascii_lowercase()).filter(|x| !x.is_empty()).collect())
            }
            None => (parts[0], Vec::new()),
        };
        let num = |s: &str| s.trim().parse::<f64>().ok().filter(|v| v.is_finite());
        let share = num(parts[1]).filter(|&s| s >= 0.0).ok_or_else(bad)?;
        let lz4 = num(parts[2]).filter(|&r| r >= 1.0).ok_or_else(bad)?;
        let zstd = parts.get(3).map_or(Some(lz4), |s| num(s)).filter(|&r| r >= 1.0).ok_or_else(bad)?;
        let gzip = parts.get(4).map_or(Some(zstd), |s| num(s)).filter(|&r| r >= 1.0).ok_or_else(bad)?;
        if name.trim().is_empty() {
            return Err(bad());
        }
        Ok(FileClass {
            name: name.trim().into(),
            share,
            extensions,
            lz4_ratio: lz4,
            zstd_ratio: zstd,
            gzip_ratio: gzip,
        })
    }

    /// The classes a tree has when none are given: compressible documents and source (40 %,
    /// lz4 2.0, zstd 2.8, gzip 2.6) and already-compressed media and archives (60 %, 1.0)
    /// [U: typical of mixed home directories].
    pub fn defaults() -> Vec<FileClass> {
        let mut text = FileClass::parse("text=txt/md/c/h/rs/py/html/xml/json/csv/log/doc:0.4:2.0:2.8:2.6")
            .expect("the default text class parses");
        text.extensions.sort();
        let media = FileClass::parse("media:0.6:1.0").expect("the default media class parses");
        vec![text, media]
    }
}

/// How file sizes are drawn.
#[derive(Clone, Debug, PartialEq)]
pub enum SizeDist {
    /// Every file this size.
    Fixed(u64),
    /// Log-normal: the median and the standard deviation of ln(size).
    LogNormal {
        /// Median size, bytes.
        median_bytes: f64,
        /// σ of ln(size).
        sigma: f64,
    },
    /// Buckets `(upper bound bytes, weight)` in rising order; sizes are log-uniform within a
    /// bucket (uniform in the first).
    Histogram(Vec<(u64, f64)>),
}

impl SizeDist {
    /// Parses `fixed:SIZE`, `lognormal:MEDIAN:SIGMA` or `hist:UPPER=WEIGHT,…`.
    pub fn parse(text: &str) -> Result<SizeDist, OpError> {
        let bad = |why: &str| OpError::Parameter {
            field: "--size-dist".into(),
            value: text.into(),
            allowed: format!(
                "{why}: fixed:SIZE, lognormal:MEDIAN:SIGMA or hist:UPPER=WEIGHT,UPPER=WEIGHT,... (sizes as 4K, 1M), \
                 e.g. lognormal:16K:2.0"
            ),
        };
        let (kind, rest) = text.split_once(':').ok_or_else(|| bad("no kind"))?;
        match kind {
            "fixed" => Ok(SizeDist::Fixed(parse_size(rest).ok_or_else(|| bad("not a size"))?)),
            "lognormal" => {
                let (m, s) = rest.split_once(':').ok_or_else(|| bad("give a median and a sigma"))?;
                let median =
                    parse_size(m).filter(|&m| m > 0).ok_or_else(|| bad("the median must be a positive size"))?;
                let sigma = s.parse::<f64>().ok().filter(|s| s.is_finite() && (0.0..=10.0).contains(s));
                Ok(SizeDist::LogNormal {
                    median_bytes: median as f64,
                    sigma: sigma.ok_or_else(|| bad("sigma must be 0 to 10"))?,
                })
            }
            "hist" => {
                let mut buckets = Vec::new();
                for part in rest.split(',') {
                    let (u, w) = part.split_once('=').ok_or_else(|| bad("buckets are UPPER=WEIGHT"))?;
                    let upper = parse_size(u).ok_or_else(|| bad("a bucket's upper bound is not a size"))?;
                    let weight = w.trim().parse::<f64>().ok().filter(|w| w.is_finite() && *w >= 0.0);
                    buckets.push((upper, weight.ok_or_else(|| bad("weights are non-negative numbers"))?));
                }
                if buckets.windows(2).any(|w| w[0].0 >= w[1].0) || buckets.iter().all(|b| b.1 == 0.0) {
                    return Err(bad("upper bounds must rise and some weight be positive"));
                }
                Ok(SizeDist::Histogram(buckets))
            }
            _ => Err(bad("unknown kind")),
        }
    }

    fn draw(&self, rng: &mut SimRng) -> u64 {
        match self {
            SizeDist::Fixed(b) => *b,
            SizeDist::LogNormal { median_bytes, sigma } => {
                // Box-Muller.
                let u1 = rng.unit_f64().max(1e-300);
                let u2 = rng.unit_f64();
                let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                (median_bytes * (sigma * z).exp()).min(MAX_FILE_BYTES as f64) as u64
            }
            SizeDist::Histogram(buckets) => {
                let total: f64 = buckets.iter().map(|b| b.1).sum();
                let mut x = rng.unit_f64() * total;
                let mut lower = 0u64;
                for &(upper, w) in buckets {
                    if x < w || upper == buckets[buckets.len() - 1].0 {
                        let f = rng.unit_f64();
                        return if lower == 0 {
                            (f * upper as f64) as u64
                        } else {
                            ((lower as f64).ln() + f * ((upper as f64).ln() - (lower as f64).ln())).exp() as u64
                        };
                    }
                    x -= w;
                    lower = upper;
                }
                lower
            }
        }
    }
}

/// The largest file a tree holds (16 TiB).
const MAX_FILE_BYTES: u64 = 1 << 44;
/// The most files a tree holds.
pub const MAX_TREE_FILES: u64 = 1 << 30;
/// No parent: the tree's top directory.
pub(crate) const NO_DIR: u32 = u32::MAX;

/// What to generate.
#[derive(Clone, Debug, PartialEq)]
pub struct TreeSpec {
    /// Files.
    pub files: u64,
    /// Their sizes.
    pub sizes: SizeDist,
    /// Files per directory.
    pub files_per_dir: u32,
    /// Subdirectories per directory.
    pub dirs_per_dir: u32,
    /// Length of each name, bytes.
    pub name_bytes: u32,
    /// File classes; shares are normalised.
    pub classes: Vec<FileClass>,
    /// Seed of the sizes and classes drawn.
    pub seed: u64,
}

impl TreeSpec {
    /// `files` files of sizes `sizes`, 1000 to a directory, 10 subdirectories each,
    /// 20-byte names, the default classes.
    pub fn new(files: u64, sizes: SizeDist) -> Self {
        TreeSpec {
            files,
            sizes,
            files_per_dir: 1000,
            dirs_per_dir: 10,
            name_bytes: 20,
            classes: FileClass::defaults(),
            seed: 1,
        }
    }
}

/// A file tree. See the module documentation.
#[derive(Clone, Debug)]
pub struct Tree {
    pub(crate) file_bytes: Vec<u64>,
    pub(crate) file_class: Vec<u8>,
    pub(crate) file_name_len: Vec<u8>,
    /// Directories in creation order: parent, first file, file count, first child, next sibling.
    pub(crate) dir_parent: Vec<u32>,
    pub(crate) dir_first_file: Vec<u32>,
    pub(crate) dir_files: Vec<u32>,
    pub(crate) dir_first_child: Vec<u32>,
    pub(crate) dir_next_sibling: Vec<u32>,
    pub(crate) dir_name_len: Vec<u8>,
    /// The classes files refer to.
    pub classes: Vec<FileClass>,
}

impl Tree {
    /// Files.
    pub fn files(&self) -> usize {
        self.file_bytes.len()
    }
    /// Directories, the top one included.
    pub fn dirs(&self) -> usize {
        self.dir_parent.len()
    }
    /// Bytes of file data.
    pub fn bytes(&self) -> u64 {
        self.file_bytes.iter().sum()
    }
    /// Size of file `f`.
    pub fn file_bytes(&self, f: usize) -> u64 {
        self.file_bytes[f]
    }
    /// Memory the tree's arrays hold, bytes.
    pub fn memory_bytes(&self) -> usize {
        self.file_bytes.capacity() * 8
            + self.file_class.capacity()
            + self.file_name_len.capacity()
            + (self.dir_parent.capacity()
                + self.dir_first_file.capacity()
                + self.dir_files.capacity()
                + self.dir_first_child.capacity()
                + self.dir_next_sibling.capacity())
                * 4
            + self.dir_name_len.capacity()
    }

    /// The subdirectories of `d`, in creation order.
    pub(crate) fn children(&self, d: u32) -> impl Iterator<Item = u32> + '_ {
        std::iter::successors(Some(self.dir_first_child[d as usize]).filter(|&c| c != NO_DIR), move |&c| {
            Some(self.dir_next_sibling[c as usize]).filter(|&n| n != NO_DIR)
        })
    }

    /// Generates the tree `spec` describes.
    pub fn generate(spec: &TreeSpec) -> Result<Tree, OpError> {
        let param = |field: &str, value: &dyn std::fmt::Display, allowed: &str| OpError::Parameter {
            field: field.into(),
            value: value.to_string(),
            allowed: allowed.into(),
        };
        if spec.files == 0 || spec.files > MAX_TREE_FILES {
            return Err(param("--files", &spec.files, &format!("1 to {MAX_TREE_FILES}")));
        }
        if spec.files_per_dir == 0 {
            return Err(param("--files-per-dir", &0, "at least 1"));
        }
        if spec.dirs_per_dir == 0 {
            return Err(param("--dirs-per-dir", &0, "at least 1"));
        }
        if !(1..=255).contains(&spec.name_bytes) {
            return Err(param("--name-bytes", &spec.name_bytes, "1 to 255"));
        }
        let total_share: f64 = spec.classes.iter().map(|c| c.share).sum();
        if spec.classes.is_empty() || spec.classes.len() > 255 || total_share.is_nan() || total_share <= 0.0 {
            return Err(param("--classes", &spec.classes.len(), "1 to 255 classes, some with a positive share"));
        }
        let n = spec.files as usize;
        let dirs = n.div_ceil(spec.files_per_dir as usize).max(1);
        // A complete tree of fan-out dirs_per_dir in breadth-first numbering, renumbered in
        // depth-first pre-order (creation order).
        let fan = spec.dirs_per_dir as usize;
        let bfs_children = |b: usize| b * fan + 1..(b * fan + 1 + fan).min(dirs);
        let mut order = Vec::with_capacity(dirs); // dfs index -> bfs index
        let mut dfs_of = vec![0u32; dirs];
        let mut stack = vec![0usize];
        while let Some(b) = stack.pop() {
            dfs_of[b] = order.len() as u32;
            order.push(b);
            stack.extend(bfs_children(b).rev());
        }
        let mut t = Tree {
            file_bytes: Vec::with_capacity(n),
            file_class: Vec::with_capacity(n),
            file_name_len: vec![spec.name_bytes as u8; n],
            dir_parent: vec![NO_DIR; dirs],
            dir_first_file: vec![0; dirs],
            dir_files: vec![0; dirs],
            dir_first_child: vec![NO_DIR; dirs],
            dir_next_sibling: vec![NO_DIR; dirs],
            dir_name_len: vec![spec.name_bytes as u8; dirs],
            classes: spec.classes.clone(),
        };
        for (d, &b) in order.iter().enumerate() {
            if b > 0 {
                t.dir_parent[d] = dfs_of[(b - 1) / fan];
            }
            let kids: Vec<u32> = bfs_children(b).map(|c| dfs_of[c]).collect();
            if let Some(&first) = kids.first() {
                t.dir_first_child[d] = first;
            }
            for w in kids.windows(2) {
                t.dir_next_sibling[w[0] as usize] = w[1];
            }
        }
        let mut rng = SimRng::stream(spec.seed, 0x7472_6565);
        let cumulative: Vec<f64> = spec
            .classes
            .iter()
            .scan(0.0, |acc, c| {
                *acc += c.share / total_share;
                Some(*acc)
            })
            .collect();
        let mut left = n;
        for d in 0..dirs {
            let here = left.min(spec.files_per_dir as usize);
            t.dir_first_file[d] = (n - left) as u32;
            t.dir_files[d] = here as u32;
            left -= here;
        }
        for _ in 0..n {
            t.file_bytes.push(spec.sizes.draw(&mut rng));
            let x = rng.unit_f64();
            t.file_class.push(cumulative.iter().position(|&c| x < c).unwrap_or(cumulative.len() - 1) as u8);
        }
        Ok(t)
    }

    /// Reads a directory scan: one `SIZE PATH` line per file, as `find DIR -type f -printf
    /// '%s %p\n'` prints them. Directories come from the paths (a line whose path is a
    /// parent of others is taken as the directory's own line); a file's class is the first
    /// class listing its extension, else the first class without extensions, else the first.
    // Parsing, the directories and the walk share their tables; split, they would pass them
    // all around.
    #[allow(clippy::too_many_lines)]
    pub fn from_scan(text: &str, source: &str, classes: Vec<FileClass>) -> Result<Tree, OpError> {
        fn parent_of(p: &str) -> &str {
            p.rfind('/').map_or("", |i| &p[..i])
        }
        if classes.is_empty() || classes.len() > 255 {
            return Err(OpError::Parameter {
                field: "--classes".into(),
                value: classes.len().to_string(),
                allowed: "1 to 255 classes".into(),
            });
        }
        let mut entries: Vec<(u64, &str)> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let bad = |problem: &str| OpError::Input {
                file: source.into(),
                line: i + 1,
                problem: format!("{problem}: expected 'SIZE PATH' as find -type f -printf '%s %p\\n' prints"),
            };
            let (size, path) = line.trim_start().split_once(' ').ok_or_else(|| bad("no path after the size"))?;
            let size: u64 = size.parse().map_err(|_| bad(&format!("'{size}' is not a size in bytes")))?;
            if size > MAX_FILE_BYTES {
                return Err(bad(&format!("{size} bytes is beyond the largest file modelled ({MAX_FILE_BYTES})")));
            }
            let path = path.trim_end_matches('/');
            if path.is_empty() {
                return Err(bad("empty path"));
            }
            entries.push((size, path));
            if entries.len() as u64 > MAX_TREE_FILES {
                return Err(bad(&format!("more than {MAX_TREE_FILES} files")));
            }
        }
        if entries.is_empty() {
            return Err(OpError::Input { file: source.into(), line: 1, problem: "no files in the scan".into() });
        }
        // Directories: every proper prefix of a path; lines that are directories drop out.
        let mut dir_ids: HashMap<&str, usize> = HashMap::new();
        let mut dir_paths: Vec<&str> = Vec::new();
        for &(_, path) in &entries {
            let mut at = 0;
            while let Some(slash) = path[at..].find('/') {
                let prefix = &path[..at + slash];
                at += slash + 1;
                if !dir_ids.contains_key(prefix) {
                    dir_ids.insert(prefix, dir_paths.len());
                    dir_paths.push(prefix);
                }
            }
        }
        let top = "";
        if !dir_ids.contains_key(top) {
            dir_ids.insert(top, dir_paths.len());
            dir_paths.push(top);
        }
        let files: Vec<(u64, &str)> = entries.into_iter().filter(|(_, p)| !dir_ids.contains_key(p)).collect();
        // Children lists in name order, then a depth-first walk from the top.
        let top_id = dir_ids[top];
        let mut kids: Vec<Vec<usize>> = vec![Vec::new(); dir_paths.len()];
        for (i, &p) in dir_paths.iter().enumerate() {
            if p != top {
                // Every proper prefix of a path is a directory, so the parent is known.
                kids[dir_ids[parent_of(p)]].push(i);
            }
        }
        for k in &mut kids {
            k.sort_by_key(|&i| dir_paths[i]);
        }
        let mut files_in: Vec<Vec<usize>> = vec![Vec::new(); dir_paths.len()];
        for (i, &(_, p)) in files.iter().enumerate() {
            files_in[dir_ids[parent_of(p)]].push(i);
        }
        let mut order = Vec::with_capacity(dir_paths.len());
        let mut dfs_of = vec![NO_DIR; dir_paths.len()];
        let mut stack = vec![top_id];
        while let Some(d) = stack.pop() {
            if dfs_of[d] != NO_DIR {
                continue;
            }
            dfs_of[d] = order.len() as u32;
            order.push(d);
            stack.extend(kids[d].iter().rev());
        }
        let dirs = order.len();
        let extension = |p: &str| {
            let name = &p[p.rfind('/').map_or(0, |i| i + 1)..];
            name.rfind('.').map(|i| name[i + 1..].to_ascii_lowercase())
        };
        let fallback = classes.iter().position(|c| c.extensions.is_empty()).unwrap_or(0) as u8;
        let mut t = Tree {
            file_bytes: Vec::with_capacity(files.len()),
            file_class: Vec::with_capacity(files.len()),
            file_name_len: Vec::with_capacity(files.len()),
            dir_parent: vec![NO_DIR; dirs],
            dir_first_file: vec![0; dirs],
            dir_files: vec![0; dirs],
            dir_first_child: vec![NO_DIR; dirs],
            dir_next_sibling: vec![NO_DIR; dirs],
            dir_name_len: vec![0; dirs],
            classes,
        };
        let name_len = |p: &str| (p.len() - p.rfind('/').map_or(0, |i| i + 1)).clamp(1, 255) as u8;
        for (d, &orig) in order.iter().enumerate() {
            let p = dir_paths[orig];
            t.dir_name_len[d] = name_len(p).max(1);
            if orig != top_id {
                t.dir_parent[d] = dfs_of[dir_ids.get(parent_of(p)).copied().unwrap_or(top_id)];
            }
            let children: Vec<u32> = kids[orig].iter().map(|&k| dfs_of[k]).collect();
            if let Some(&first) = children.first() {
                t.dir_first_child[d] = first;
            }
            for w in children.windows(2) {
                t.dir_next_sibling[w[0] as usize] = w[1];
            }
            t.dir_first_file[d] = t.file_bytes.len() as u32;
            t.dir_files[d] = files_in[orig].len() as u32;
            for &f in &files_in[orig] {
                let (size, path) = files[f];
                t.file_bytes.push(size);
                t.file_name_len.push(name_len(path));
                let ext = extension(path);
                let class = ext
                    .and_then(|e| t.classes.iter().position(|c| c.extensions.contains(&e)))
                    .map_or(fallback, |c| c as u8);
                t.file_class.push(class);
            }
        }
        Ok(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generated_tree_numbers_directories_depth_first_with_their_files_contiguous() {
        let mut spec = TreeSpec::new(25, SizeDist::Fixed(4096));
        spec.files_per_dir = 5;
        spec.dirs_per_dir = 2;
        let t = Tree::generate(&spec).unwrap();
        assert_eq!((t.files(), t.dirs()), (25, 5));
        // BFS 0 -> {1, 2}, 1 -> {3, 4}: DFS order 0, 1, 3, 4, 2.
        assert_eq!(t.dir_parent, vec![NO_DIR, 0, 1, 1, 0]);
        assert_eq!(t.children(0).collect::<Vec<_>>(), vec![1, 4]);
        assert_eq!(t.dir_first_file, vec![0, 5, 10, 15, 20]);
        assert_eq!(t.bytes(), 25 * 4096);
    }

    #[test]
    fn sizes_follow_their_distribution() {
        let mut spec = TreeSpec::new(20_000, SizeDist::parse("lognormal:16K:1.5").unwrap());
        spec.seed = 3;
        let t = Tree::generate(&spec).unwrap();
        let mut sizes = t.file_bytes.clone();
        sizes.sort_unstable();
        let median = sizes[sizes.len() / 2] as f64;
        assert!((median / 16384.0 - 1.0).abs() < 0.05, "median {median}");
        // One count in a test: not worth the bytecount crate.
        #[allow(clippy::naive_bytecount)]
        let text = t.file_class.iter().filter(|&&c| c == 0).count() as f64 / 20_000.0;
        assert!((text - 0.4).abs() < 0.02, "share of the first class {text}");
        let h = SizeDist::parse("hist:4K=1,64K=1").unwrap();
        let mut rng = SimRng::stream(1, 1);
        let small = (0..10_000).filter(|_| h.draw(&mut rng) <= 4096).count();
        assert!((4_700..5_300).contains(&small), "{small}");
    }

    #[test]
    fn a_scan_gives_directories_from_paths_and_classes_from_extensions() {
        let scan = "10 a/x.txt\n20 a/b/y.jpg\n4096 a/b\n30 a/z\n";
        let t = Tree::from_scan(scan, "scan.txt", FileClass::defaults()).unwrap();
        assert_eq!(t.files(), 3, "the directory's own line is not a file");
        assert_eq!(t.dirs(), 3, "the top, a and a/b");
        assert_eq!(t.file_bytes, vec![10, 30, 20], "a's files first, then a/b's");
        assert_eq!(t.file_class, vec![0, 1, 1], "txt is text; jpg and none fall back to media");
        let e = Tree::from_scan("10 a\nxx b\n", "scan.txt", FileClass::defaults()).unwrap_err().to_string();
        assert_eq!(
            e,
            "scan.txt:2: 'xx' is not a size in bytes: expected 'SIZE PATH' as find -type f -printf '%s %p\\n' prints"
        );
    }

    #[test]
    fn bad_parameters_name_the_option() {
        let e = SizeDist::parse("normal:4K").unwrap_err().to_string();
        assert!(e.starts_with("--size-dist = normal:4K: unknown kind"), "{e}");
        let e = FileClass::parse("x:0.5:0.5").unwrap_err().to_string();
        assert!(e.starts_with("--classes = x:0.5:0.5:"), "{e}");
        let e = Tree::generate(&TreeSpec::new(0, SizeDist::Fixed(1))).unwrap_err().to_string();
        assert!(e.starts_with("--files = 0: 1 to"), "{e}");
    }
}
