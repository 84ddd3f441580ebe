//! The `.nnue` file format (documented in nets/FORMAT.md): a self-describing
//! header, little-endian tensors, and a checksum over everything before it.

use std::fmt;

/// The first bytes of a zstd frame.
pub const ZSTD_MAGIC: &[u8] = &[0x28, 0xB5, 0x2F, 0xFD];

pub const MAGIC: &[u8; 4] = b"TSNN";
/// The newest version: 3 adds the feature transformer's activation (a
/// pairwise product). Each net is written in the oldest version that can
/// hold it, byte for byte what older builds wrote and read: 1 with one
/// output bucket, 2 with several, 3 only for a pairwise net.
pub const VERSION: u32 = 3;
/// The version with output buckets and no activation field.
pub const VERSION_BUCKETS: u32 = 2;
/// The version without output buckets.
pub const VERSION_SINGLE: u32 = 1;

/// The activation field of version 3: each output clipped to 0..1 (what
/// versions 1 and 2 mean), or the pairwise product.
const ACTIVATION_CLIPPED: u32 = 0;
const ACTIVATION_PAIRWISE: u32 = 1;

/// Output buckets above this are refused.
pub const MAX_BUCKETS: usize = 32;

/// Layer sizes: `(inputs → ft) × 2 → hidden → [hidden2 →] 1`, the layers
/// after the feature transformer repeated `buckets` times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub inputs: usize,
    pub ft: usize,
    pub hidden: usize,
    /// Size of the optional second hidden layer (0: none).
    pub hidden2: usize,
    /// Output buckets: stacks of the hidden and output layers, one chosen
    /// per position by its number of pieces ([`output_bucket`]); 1: none.
    pub buckets: usize,
    /// The feature transformer's halves multiplied pairwise (Stockfish's
    /// activation since 15.1): each perspective's `ft` outputs become
    /// `ft / 2` products of clipped values, so the first hidden layer reads
    /// `ft` inputs instead of `2·ft`. False: each output clipped on its own.
    pub pairwise: bool,
}

impl Shape {
    /// The plain shape (clipped activations) with these sizes.
    pub fn new(inputs: usize, ft: usize, hidden: usize, hidden2: usize, buckets: usize) -> Shape {
        Shape { inputs, ft, hidden, hidden2, buckets, pairwise: false }
    }

    /// The first hidden layer's inputs: both perspectives' activations.
    pub fn l1_inputs(&self) -> usize {
        if self.pairwise { self.ft } else { 2 * self.ft }
    }

    /// The size of the layer that feeds the output neuron.
    pub fn last(&self) -> usize {
        if self.hidden2 > 0 { self.hidden2 } else { self.hidden }
    }

    /// The compact name used in file names and `--version`: `512x2-32-1`,
    /// `512x2-32-32-1`, `512x2-32-1-ob8` with 8 output buckets and
    /// `512x2p-32-1` with the pairwise product.
    pub fn short_name(&self) -> String {
        let pairwise = if self.pairwise { "p" } else { "" };
        let second = if self.hidden2 > 0 { format!("-{}", self.hidden2) } else { String::new() };
        let buckets = if self.buckets > 1 { format!("-ob{}", self.buckets) } else { String::new() };
        format!("{}x2{pairwise}-{}{second}-1{buckets}", self.ft, self.hidden)
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({} -> {})x2", self.inputs, self.ft)?;
        if self.pairwise {
            write!(f, " -> pairwise {}", self.l1_inputs())?;
        }
        write!(f, " -> {}", self.hidden)?;
        if self.hidden2 > 0 {
            write!(f, " -> {}", self.hidden2)?;
        }
        write!(f, " -> 1")?;
        if self.buckets > 1 {
            write!(f, ", {} output buckets", self.buckets)?;
        }
        Ok(())
    }
}

/// The output bucket of a position with `pieces` pieces (kings and pawns
/// included) among `buckets`: the 32 possible counts split into equal runs,
/// fewest pieces first (8 buckets: 1–4, 5–8, …, 29–32).
#[inline]
pub fn output_bucket(pieces: u32, buckets: usize) -> usize {
    ((pieces.max(1) as usize - 1) * buckets / 32).min(buckets - 1)
}

/// Quantization scales (Stockfish's scheme; nets/FORMAT.md, "Arithmetic").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scales {
    /// Feature-transformer weights and biases: ×127; activations 0..127.
    pub ft: u32,
    /// Hidden and output weights: ×64.
    pub weight: u32,
    /// Centipawns per unit of the float network's output.
    pub output_cp: u32,
}

pub const DEFAULT_SCALES: Scales = Scales { ft: 127, weight: 64, output_cp: 400 };

/// The quantized tensors, in file order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tensors {
    pub ft_bias: Vec<i16>,
    /// `inputs × ft`: the column of each feature is contiguous.
    pub ft_weights: Vec<i16>,
    /// `buckets × hidden`.
    pub hidden_bias: Vec<i32>,
    /// `buckets × hidden × l1_inputs`: per bucket, row-major.
    pub hidden_weights: Vec<i8>,
    /// `buckets × hidden2`.
    pub hidden2_bias: Vec<i32>,
    /// `buckets × hidden2 × hidden`: per bucket, row-major (empty without a second layer).
    pub hidden2_weights: Vec<i8>,
    /// One per bucket.
    pub output_bias: Vec<i32>,
    /// `buckets × last`.
    pub output_weights: Vec<i8>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetFile {
    pub features: String,
    pub description: String,
    pub shape: Shape,
    pub scales: Scales,
    pub tensors: Tensors,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormatError {
    Truncated {
        needed: usize,
        at: usize,
        len: usize,
    },
    BadMagic,
    /// The bytes are a zstd frame: a compressed net (`nets/*.nnue.zst`).
    Compressed,
    BadVersion(u32),
    BadChecksum {
        stored: u64,
        computed: u64,
    },
    TrailingBytes(usize),
    Invalid(String),
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FormatError::Truncated { needed, at, len } => {
                write!(f, "truncated net file: needs {needed} more bytes at offset {at}, file has {len}")
            }
            FormatError::BadMagic => write!(f, "not a Tessera net file (wrong magic)"),
            FormatError::Compressed => {
                write!(f, "a zstd-compressed net: decompress it first (zstd -d FILE) or embed it with TESSERA_NET")
            }
            FormatError::BadVersion(v) => {
                write!(f, "unsupported net file version {v} (this build reads versions {VERSION_SINGLE} to {VERSION})")
            }
            FormatError::BadChecksum { stored, computed } => {
                write!(f, "corrupt net file: checksum {computed:016x} does not match stored {stored:016x}")
            }
            FormatError::TrailingBytes(n) => write!(f, "corrupt net file: {n} unexpected bytes after the checksum"),
            FormatError::Invalid(msg) => write!(f, "invalid net file: {msg}"),
        }
    }
}

impl std::error::Error for FormatError {}

/// FNV-1a, 64 bits: detects corruption, not tampering.
pub fn checksum(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], FormatError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len()).ok_or(FormatError::Truncated {
            needed: n,
            at: self.at,
            len: self.bytes.len(),
        })?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }
    fn u16(&mut self) -> Result<u16, FormatError> {
        Ok(u16::from_le_bytes(self.take(2)?.try_into().unwrap()))
    }
    fn u32(&mut self) -> Result<u32, FormatError> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }
    fn u64(&mut self) -> Result<u64, FormatError> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }
    fn text(&mut self, len: usize, what: &str) -> Result<String, FormatError> {
        String::from_utf8(self.take(len)?.to_vec()).map_err(|_| FormatError::Invalid(format!("{what} is not UTF-8")))
    }
    fn i16s(&mut self, n: usize) -> Result<Vec<i16>, FormatError> {
        Ok(self
            .take(n.checked_mul(2).ok_or_else(too_big)?)?
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect())
    }
    fn i32s(&mut self, n: usize) -> Result<Vec<i32>, FormatError> {
        Ok(self
            .take(n.checked_mul(4).ok_or_else(too_big)?)?
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
            .collect())
    }
    fn i8s(&mut self, n: usize) -> Result<Vec<i8>, FormatError> {
        Ok(self.take(n)?.iter().map(|&b| b as i8).collect())
    }
}

fn too_big() -> FormatError {
    FormatError::Invalid("layer sizes overflow".into())
}

/// Layer sizes above this are refused before any allocation.
const MAX_LAYER: usize = 1 << 20;

impl NetFile {
    pub fn parse(bytes: &[u8]) -> Result<NetFile, FormatError> {
        let mut c = Cursor { bytes, at: 0 };
        let magic = c.take(4).map_err(|_| FormatError::BadMagic)?;
        if magic == ZSTD_MAGIC {
            return Err(FormatError::Compressed);
        }
        if magic != MAGIC {
            return Err(FormatError::BadMagic);
        }
        let version = c.u32()?;
        if !(VERSION_SINGLE..=VERSION).contains(&version) {
            return Err(FormatError::BadVersion(version));
        }
        // The checksum covers everything before its own 8 bytes.
        if bytes.len() >= 8 {
            let (body, tail) = bytes.split_at(bytes.len() - 8);
            let stored = u64::from_le_bytes(tail.try_into().unwrap());
            let computed = checksum(body);
            if stored != computed {
                return Err(FormatError::BadChecksum { stored, computed });
            }
        }
        let features_len = c.u16()? as usize;
        let features = c.text(features_len, "feature-set expression")?;
        let description_len = c.u32()? as usize;
        let description = c.text(description_len, "description")?;
        let mut size = || -> Result<usize, FormatError> {
            let v = c.u32()? as usize;
            if v > MAX_LAYER { Err(FormatError::Invalid(format!("layer size {v} is implausible"))) } else { Ok(v) }
        };
        let (inputs, ft, hidden, hidden2) = (size()?, size()?, size()?, size()?);
        let buckets = if version == VERSION_SINGLE { 1 } else { c.u32()? as usize };
        let pairwise = match if version == VERSION { c.u32()? } else { ACTIVATION_CLIPPED } {
            ACTIVATION_CLIPPED => false,
            ACTIVATION_PAIRWISE => true,
            other => return Err(FormatError::Invalid(format!("unknown activation {other} (0 and 1 are valid)"))),
        };
        let shape = Shape { inputs, ft, hidden, hidden2, buckets, pairwise };
        if shape.inputs == 0 || shape.ft == 0 || shape.hidden == 0 {
            return Err(FormatError::Invalid(format!("empty layer in {shape}")));
        }
        if pairwise && !shape.ft.is_multiple_of(2) {
            return Err(FormatError::Invalid(format!("a pairwise product of an odd width {}", shape.ft)));
        }
        if !(1..=MAX_BUCKETS).contains(&buckets) {
            return Err(FormatError::Invalid(format!("{buckets} output buckets (1 to {MAX_BUCKETS} are valid)")));
        }
        let scales = Scales { ft: c.u32()?, weight: c.u32()?, output_cp: c.u32()? };
        let ft_weights_len = shape.inputs.checked_mul(shape.ft).ok_or_else(too_big)?;
        let k = buckets;
        let tensors = Tensors {
            ft_bias: c.i16s(shape.ft)?,
            ft_weights: c.i16s(ft_weights_len)?,
            hidden_bias: c.i32s(k * shape.hidden)?,
            hidden_weights: c.i8s(k * shape.hidden * shape.l1_inputs())?,
            hidden2_bias: c.i32s(k * shape.hidden2)?,
            hidden2_weights: c.i8s(k * shape.hidden2 * shape.hidden)?,
            output_bias: c.i32s(k)?,
            output_weights: c.i8s(k * shape.last())?,
        };
        let _stored = c.u64()?;
        if c.at != bytes.len() {
            return Err(FormatError::TrailingBytes(bytes.len() - c.at));
        }
        Ok(NetFile { features, description, shape, scales, tensors })
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        let s = self.shape;
        let version = match (s.pairwise, s.buckets) {
            (true, _) => VERSION,
            (false, 1) => VERSION_SINGLE,
            (false, _) => VERSION_BUCKETS,
        };
        out.extend_from_slice(&version.to_le_bytes());
        out.extend_from_slice(&(self.features.len() as u16).to_le_bytes());
        out.extend_from_slice(self.features.as_bytes());
        out.extend_from_slice(&(self.description.len() as u32).to_le_bytes());
        out.extend_from_slice(self.description.as_bytes());
        for v in [s.inputs, s.ft, s.hidden, s.hidden2] {
            out.extend_from_slice(&(v as u32).to_le_bytes());
        }
        if version != VERSION_SINGLE {
            out.extend_from_slice(&(s.buckets as u32).to_le_bytes());
        }
        if version == VERSION {
            out.extend_from_slice(&ACTIVATION_PAIRWISE.to_le_bytes());
        }
        for v in [self.scales.ft, self.scales.weight, self.scales.output_cp] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        let t = &self.tensors;
        t.ft_bias.iter().chain(&t.ft_weights).for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
        t.hidden_bias.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
        out.extend(t.hidden_weights.iter().map(|&v| v as u8));
        t.hidden2_bias.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
        out.extend(t.hidden2_weights.iter().map(|&v| v as u8));
        t.output_bias.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
        out.extend(t.output_weights.iter().map(|&v| v as u8));
        let sum = checksum(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// A short identifier of the file's content (first 12 hex digits of the checksum).
    pub fn content_hash(bytes: &[u8]) -> String {
        format!("{:012x}", checksum(bytes) >> 16)
    }
}
