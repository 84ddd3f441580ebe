//! The net files a run reads: the starting weights of `--init`, and finished
//! nets as the engine runs them (the `--teacher`, the net `eval-net` scores).

use std::path::Path;

use tessera::features::FeatureSet;
use tessera::nnue::format::{NetFile, Shape, ZSTD_MAGIC};
use tessera::nnue::network::{FloatNetwork, Network};

type Error = Box<dyn std::error::Error>;

/// The weights of `--init`: a `.nnue` file (or its zstd), which must be of
/// the run's feature set and shape, turned back into floats; with its
/// content hash, which the checkpoint's fingerprint records.
pub fn starting_net(path: &Path, fs: &FeatureSet, shape: Shape) -> Result<(FloatNetwork, String), Error> {
    let bytes = read_net("--init", path)?;
    let file = NetFile::parse(&bytes).map_err(|e| format!("--init: {}: {e}", path.display()))?;
    let same_features = file.features.parse::<FeatureSet>().is_ok_and(|f| f.expression() == fs.expression());
    if !same_features || file.shape != shape {
        return Err(format!(
            "--init: {} is a '{}' {} net; this run trains a '{}' {} net (set --features, --ft, --hidden, \
             --hidden2, --output-buckets and --pairwise to match it)",
            path.display(),
            file.features,
            file.shape.short_name(),
            fs.expression(),
            shape.short_name()
        )
        .into());
    }
    let hash = NetFile::content_hash(&bytes);
    println!("starting from {} ({hash}): {}", path.display(), file.description);
    Ok((FloatNetwork::dequantize(&file), hash))
}

/// A net file's bytes, decompressed if it is a zstd frame (`option` names
/// the command-line option in errors).
pub fn read_net(option: &str, path: &Path) -> Result<Vec<u8>, Error> {
    let read = std::fs::read(path).map_err(|e| format!("{option}: cannot read {}: {e}", path.display()))?;
    if read.starts_with(ZSTD_MAGIC) {
        Ok(zstd::decode_all(read.as_slice()).map_err(|e| format!("{option}: {}: bad zstd: {e}", path.display()))?)
    } else {
        Ok(read)
    }
}

/// A finished net as the engine runs it (integer weights), with its content
/// hash: the distillation teacher of `--teacher`, the net `eval-net` scores.
pub fn engine_net(option: &str, path: &Path) -> Result<(Network, String), Error> {
    let bytes = read_net(option, path)?;
    let net = Network::from_bytes(&bytes).map_err(|e| format!("{option}: {}: {e}", path.display()))?;
    Ok((net, NetFile::content_hash(&bytes)))
}
