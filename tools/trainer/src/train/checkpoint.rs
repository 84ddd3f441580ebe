//! Checkpoints: everything a killed run needs to go on as if it had not been
//! stopped. Written to a temporary file and renamed, so a kill leaves either
//! the previous checkpoint or the new one; a checksum catches the rest.
//!
//! Layout (little-endian): `TSCK`, version u32, fingerprint (u32 length +
//! UTF-8), epochs done u32, history rows u32 × (5 f64, u32 count, that many
//! f64 validation losses, one per held-out set), Adam step u64,
//! parameter count u64, parameters, Adam m, Adam v (f32 each), FNV-1a u64.

use std::path::Path;

use tessera::nnue::format::checksum;

use crate::train::optim::Adam;

const MAGIC: &[u8; 4] = b"TSCK";
pub const VERSION: u32 = 2;

/// One epoch's record.
#[derive(Clone, Debug, PartialEq)]
pub struct EpochRecord {
    pub epoch: f64,
    pub train_loss: f64,
    /// The mean of `per_set`.
    pub validation_loss: f64,
    /// The loss on each held-out validation set, in the order they were given.
    pub per_set: Vec<f64>,
    pub learning_rate: f64,
    pub samples_per_second: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    /// The settings that must match for a resume (feature set, sizes, data,
    /// seed, hyperparameters).
    pub fingerprint: String,
    pub epochs_done: u32,
    pub history: Vec<EpochRecord>,
    pub params: Vec<f32>,
    pub adam: Adam,
}

impl Checkpoint {
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(MAGIC);
        b.extend_from_slice(&VERSION.to_le_bytes());
        b.extend_from_slice(&(self.fingerprint.len() as u32).to_le_bytes());
        b.extend_from_slice(self.fingerprint.as_bytes());
        b.extend_from_slice(&self.epochs_done.to_le_bytes());
        b.extend_from_slice(&(self.history.len() as u32).to_le_bytes());
        for r in &self.history {
            for v in [r.epoch, r.train_loss, r.validation_loss, r.learning_rate, r.samples_per_second] {
                b.extend_from_slice(&v.to_le_bytes());
            }
            b.extend_from_slice(&(r.per_set.len() as u32).to_le_bytes());
            r.per_set.iter().for_each(|v| b.extend_from_slice(&v.to_le_bytes()));
        }
        b.extend_from_slice(&self.adam.step.to_le_bytes());
        b.extend_from_slice(&(self.params.len() as u64).to_le_bytes());
        for v in [&self.params, &self.adam.m, &self.adam.v] {
            v.iter().for_each(|x| b.extend_from_slice(&x.to_le_bytes()));
        }
        let sum = checksum(&b);
        b.extend_from_slice(&sum.to_le_bytes());
        b
    }

    /// Reads a checkpoint; `adam` supplies the optimizer's configuration.
    pub fn from_bytes(bytes: &[u8], adam: crate::train::optim::AdamConfig) -> Result<Checkpoint, String> {
        if bytes.len() < 16 || &bytes[..4] != MAGIC {
            return Err("not a trainer checkpoint".into());
        }
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        if checksum(body) != u64::from_le_bytes(sum.try_into().unwrap()) {
            return Err("checksum mismatch (damaged checkpoint)".into());
        }
        let mut r = Reader { bytes: body, at: 4 };
        if r.u32()? != VERSION {
            return Err("unsupported checkpoint version".into());
        }
        let len = r.u32()? as usize;
        let fingerprint = String::from_utf8(r.take(len)?.to_vec()).map_err(|_| "bad fingerprint")?;
        let epochs_done = r.u32()?;
        let rows = r.u32()? as usize;
        let mut history = Vec::new();
        for _ in 0..rows {
            let mut v = [0.0; 5];
            for x in &mut v {
                *x = r.f64()?;
            }
            let sets = r.u32()? as usize;
            if sets > body.len() / 8 {
                return Err("bad validation set count".into());
            }
            let per_set = (0..sets).map(|_| r.f64()).collect::<Result<Vec<_>, _>>()?;
            history.push(EpochRecord {
                epoch: v[0],
                train_loss: v[1],
                validation_loss: v[2],
                per_set,
                learning_rate: v[3],
                samples_per_second: v[4],
            });
        }
        let step = u64::from_le_bytes(r.take(8)?.try_into().unwrap());
        let n = u64::from_le_bytes(r.take(8)?.try_into().unwrap()) as usize;
        let floats = |r: &mut Reader| -> Result<Vec<f32>, String> {
            let raw = r.take(n.checked_mul(4).ok_or("bad size")?)?;
            Ok(raw.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect())
        };
        let params = floats(&mut r)?;
        let m = floats(&mut r)?;
        let v = floats(&mut r)?;
        if r.at != body.len() {
            return Err("trailing bytes".into());
        }
        Ok(Checkpoint { fingerprint, epochs_done, history, params, adam: Adam { config: adam, step, m, v } })
    }

    /// Writes atomically ([`write_atomically`]).
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        write_atomically(path, &self.to_bytes())
    }
}

/// Writes a temporary file beside `path`, synced, then renames it: a kill
/// leaves the old file or the new one, never half of one.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension("tmp");
    {
        use std::io::Write;
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, path)
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len()).ok_or("truncated checkpoint")?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }

    fn f64(&mut self) -> Result<f64, String> {
        Ok(f64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::optim::AdamConfig;

    #[test]
    fn round_trip_and_damage() {
        let adam = Adam { config: AdamConfig::default(), step: 7, m: vec![0.5, -1.0], v: vec![0.25, 2.0] };
        let record = EpochRecord {
            epoch: 1.0,
            train_loss: 0.1,
            validation_loss: 0.2,
            per_set: vec![0.15, 0.25],
            learning_rate: 1e-3,
            samples_per_second: 1e5,
        };
        let c = Checkpoint {
            fingerprint: "all 512".into(),
            epochs_done: 1,
            history: vec![record],
            params: vec![1.0, 2.0],
            adam,
        };
        let bytes = c.to_bytes();
        assert_eq!(Checkpoint::from_bytes(&bytes, AdamConfig::default()).unwrap(), c);
        let mut damaged = bytes.clone();
        damaged[20] ^= 1;
        assert!(Checkpoint::from_bytes(&damaged, AdamConfig::default()).unwrap_err().contains("checksum"));
        assert!(Checkpoint::from_bytes(&bytes[..bytes.len() - 3], AdamConfig::default()).is_err());
        assert!(Checkpoint::from_bytes(b"nonsense-nonsense", AdamConfig::default()).is_err());
    }
}
