//! Format errors, quantized vs float agreement, scalar vs AVX2 identity.

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};

use super::format::{FormatError, NetFile, Shape, VERSION, VERSION_BUCKETS, VERSION_SINGLE, output_bucket};
use super::network::{FloatNetwork, NetError, Network};
use crate::features::FeatureSet;

fn random_file(expr: &str, hidden2: usize) -> (FloatNetwork, Vec<u8>) {
    let fs: FeatureSet = expr.parse().unwrap();
    let float = FloatNetwork::random(&fs, 64, 32, hidden2, 7);
    let bytes = float.quantize("random test net").to_bytes();
    (float, bytes)
}

/// A random net with `buckets` output buckets.
fn random_bucketed(expr: &str, hidden2: usize, buckets: usize) -> (FloatNetwork, Vec<u8>) {
    random_shaped(expr, hidden2, buckets, false)
}

/// A random net with `buckets` output buckets, pairwise or not.
fn random_shaped(expr: &str, hidden2: usize, buckets: usize, pairwise: bool) -> (FloatNetwork, Vec<u8>) {
    let fs: FeatureSet = expr.parse().unwrap();
    let shape = Shape { pairwise, ..Shape::new(fs.size(), 64, 32, hidden2, buckets) };
    let mut float = FloatNetwork::random_bucketed(&fs, shape, 7);
    if pairwise {
        // Most products of two small random sums would be 0: lift the
        // accumulators into the range where both factors are active.
        float.ft_bias.iter_mut().for_each(|b| *b += 0.4);
    }
    let bytes = float.quantize("random test net").to_bytes();
    (float, bytes)
}

fn positions() -> Vec<Chess> {
    [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R b KQ - 1 8",
    ]
    .iter()
    .map(|f| f.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap())
    .collect()
}

#[test]
fn file_round_trips() {
    let (_, bytes) = random_file("all+ph", 8);
    let file = NetFile::parse(&bytes).unwrap();
    assert_eq!(file.features, "all+ph");
    assert_eq!(file.description, "random test net");
    assert_eq!(file.to_bytes(), bytes);
}

#[test]
fn damaged_files_are_refused_with_the_cause() {
    let (_, bytes) = random_file("all", 0);
    assert!(matches!(NetFile::parse(&bytes[..bytes.len() / 2]), Err(FormatError::BadChecksum { .. })));
    assert!(matches!(
        NetFile::parse(&bytes[..6]),
        Err(FormatError::BadChecksum { .. } | FormatError::Truncated { .. })
    ));
    assert!(matches!(NetFile::parse(b"TS"), Err(FormatError::BadMagic)));
    let mut wrong_magic = bytes.clone();
    wrong_magic[0] = b'X';
    assert_eq!(NetFile::parse(&wrong_magic), Err(FormatError::BadMagic));
    let mut wrong_version = bytes.clone();
    wrong_version[4] = 99;
    assert_eq!(NetFile::parse(&wrong_version), Err(FormatError::BadVersion(99)));
    let mut flipped = bytes.clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0x40;
    assert!(matches!(NetFile::parse(&flipped), Err(FormatError::BadChecksum { .. })));
    // A consistent file cut short: re-checksummed, so only the length is wrong.
    let mut file = NetFile::parse(&bytes).unwrap();
    file.shape.inputs += 1;
    assert!(matches!(NetFile::parse(&file.to_bytes()), Err(FormatError::Truncated { .. })));
    // A compressed net is named as such, with what to do.
    let mut packed = vec![0x28, 0xB5, 0x2F, 0xFD];
    packed.extend_from_slice(&bytes[4..64]);
    assert_eq!(NetFile::parse(&packed), Err(FormatError::Compressed));
    assert!(FormatError::Compressed.to_string().contains("zstd -d"));
    for e in [FormatError::BadMagic, FormatError::BadVersion(2)] {
        assert!(!e.to_string().is_empty());
    }
}

#[test]
fn a_net_for_another_feature_set_size_is_refused() {
    let (_, bytes) = random_file("all", 0);
    let mut file = NetFile::parse(&bytes).unwrap();
    file.features = "h".to_string();
    let err = Network::from_bytes(&file.to_bytes()).unwrap_err();
    assert!(matches!(err, NetError::Mismatch(_)));
    assert!(err.to_string().contains("'h' has 96 inputs but the net has 768"), "{err}");
    file.features = "queen".into();
    assert!(matches!(Network::from_bytes(&file.to_bytes()), Err(NetError::Features(_))));
    let net = Network::from_bytes(&bytes).unwrap();
    assert!(net.check_same_kind("all", net.shape).is_ok());
    assert!(net.check_same_kind("ka", net.shape).unwrap_err().to_string().contains("built for 'ka'"));
}

#[test]
fn quantized_agrees_with_float_reference() {
    for (expr, hidden2, buckets, pairwise) in [
        ("all", 0, 1, false),
        ("all+ph+pv", 0, 1, false),
        ("ka", 16, 1, false),
        ("mb+mc", 0, 1, false),
        ("all", 0, 8, false),
        ("kb4", 8, 4, false),
        ("all", 0, 1, true),
        ("kb4", 8, 4, true),
    ] {
        let (float, bytes) = random_shaped(expr, hidden2, buckets, pairwise);
        let fs: FeatureSet = expr.parse().unwrap();
        let net = Network::from_bytes(&bytes).unwrap();
        for pos in positions() {
            let f = float.evaluate(&fs, &pos);
            let q = net.evaluate_position(&pos) as f32;
            // Rounding of weights (1/127, 1/64) and of activations (1/127)
            // through two layers: a few centipawns on a 400 cp unit.
            assert!((f - q).abs() <= 10.0 + 0.02 * f.abs(), "{expr}: float {f} quantized {q}");
        }
    }
}

#[test]
fn dequantized_net_quantizes_back_to_the_same_file() {
    for (expr, hidden2, buckets, pairwise) in
        [("all", 0, 1, false), ("ka", 16, 1, false), ("kb4", 8, 4, false), ("all+ph", 8, 2, true)]
    {
        let (_, bytes) = random_shaped(expr, hidden2, buckets, pairwise);
        let file = NetFile::parse(&bytes).unwrap();
        let float = FloatNetwork::dequantize(&file);
        assert_eq!(float.shape, file.shape);
        assert_eq!(float.features, file.features);
        assert_eq!(float.quantize(&file.description), file, "{expr}");
        // And it plays as the file does, up to the float reference's rounding.
        let fs: FeatureSet = expr.parse().unwrap();
        let net = Network::from_bytes(&bytes).unwrap();
        for pos in positions() {
            let (f, q) = (float.evaluate(&fs, &pos), net.evaluate_position(&pos) as f32);
            assert!((f - q).abs() <= 10.0 + 0.02 * f.abs(), "{expr}: dequantized {f} quantized {q}");
        }
    }
}

#[test]
fn scalar_and_avx2_evaluate_identically() {
    for (expr, hidden2, buckets, pairwise) in [
        ("all", 0, 1, false),
        ("kp+ph", 32, 1, false),
        ("all", 0, 8, false),
        ("kb8", 32, 3, false),
        ("all", 0, 1, true),
    ] {
        let (_, bytes) = random_shaped(expr, hidden2, buckets, pairwise);
        let mut scalar = Network::from_bytes(&bytes).unwrap();
        scalar.force_scalar(true);
        let vector = Network::from_bytes(&bytes).unwrap();
        for pos in positions() {
            assert_eq!(scalar.evaluate_position(&pos), vector.evaluate_position(&pos), "{expr}");
        }
    }
}

#[test]
fn output_buckets_split_the_piece_counts_evenly() {
    // 8 buckets: 1–4 pieces → 0, 5–8 → 1, …, 29–32 → 7.
    let eight: Vec<usize> = (1..=32).map(|n| output_bucket(n, 8)).collect();
    for (i, &b) in eight.iter().enumerate() {
        assert_eq!(b, i / 4, "{} pieces", i + 1);
    }
    assert!((0..=40).all(|n| output_bucket(n, 1) == 0));
    // Counts outside 1..32 (only from odd FENs) stay inside the range.
    assert_eq!(output_bucket(0, 8), 0);
    assert_eq!(output_bucket(40, 8), 7);
    assert_eq!((1..=32).map(|n| output_bucket(n, 3)).max(), Some(2));
}

#[test]
fn one_bucket_is_written_as_version_1_and_more_as_version_2() {
    let (_, single) = random_file("all", 0);
    assert_eq!(single[4..8], VERSION_SINGLE.to_le_bytes());
    let (_, bucketed) = random_bucketed("all+ph", 8, 8);
    assert_eq!(bucketed[4..8], VERSION_BUCKETS.to_le_bytes());
    let file = NetFile::parse(&bucketed).unwrap();
    assert_eq!(file.shape.buckets, 8);
    assert_eq!(file.shape.to_string(), "(1920 -> 64)x2 -> 32 -> 8 -> 1, 8 output buckets");
    assert_eq!(file.shape.short_name(), "64x2-32-8-1-ob8");
    assert_eq!(file.tensors.hidden_weights.len(), 8 * 32 * 128);
    assert_eq!(file.tensors.output_bias.len(), 8);
    assert_eq!(file.to_bytes(), bucketed);
    // An older build reads only version 1 and names the version it met;
    // this one refuses unknown versions and bucket counts with the cause.
    let mut future = bucketed.clone();
    future[4..8].copy_from_slice(&4u32.to_le_bytes());
    assert_eq!(NetFile::parse(&future), Err(FormatError::BadVersion(4)));
    assert!(FormatError::BadVersion(4).to_string().contains("reads versions 1 to 3"));
    let mut none = file.clone();
    none.shape.buckets = 0;
    let err = NetFile::parse(&none.to_bytes()).unwrap_err();
    assert!(err.to_string().contains("0 output buckets"), "{err}");
}

#[test]
fn each_bucket_has_its_own_layers() {
    // The same accumulators through different buckets give different
    // evaluations, and a position uses the bucket of its piece count.
    let (float, bytes) = random_bucketed("all", 0, 8);
    let net = Network::from_bytes(&bytes).unwrap();
    let ours: Vec<i16> = (0..64).map(|i| (i * 37 % 101) as i16).collect();
    let theirs: Vec<i16> = (0..64).map(|i| (i * 53 % 97) as i16).collect();
    let evals: Vec<i32> = (0..8).map(|b| net.evaluate(&ours, &theirs, b)).collect();
    assert!(evals.windows(2).any(|w| w[0] != w[1]), "{evals:?}");
    let start = &positions()[0];
    assert_eq!(net.bucket(32), 7);
    let fs: FeatureSet = "all".parse().unwrap();
    let mut single = float.clone();
    // Bucket 7 alone, as a one-bucket net, evaluates the start position the same.
    let (o, m) = (32, 64);
    single.shape.buckets = 1;
    single.hidden_weights = float.hidden_weights[7 * o * 2 * m..].to_vec();
    single.hidden_bias = float.hidden_bias[7 * o..].to_vec();
    single.output_weights = float.output_weights[7 * o..].to_vec();
    single.output_bias = vec![float.output_bias[7]];
    assert_eq!(single.evaluate(&fs, start), float.evaluate(&fs, start));
    let one = Network::from_bytes(&single.quantize("bucket 7").to_bytes()).unwrap();
    assert_eq!(one.evaluate_position(start), net.evaluate_position(start));
}

#[test]
fn a_pairwise_net_is_version_3_and_its_first_layer_reads_half_the_inputs() {
    let (_, bytes) = random_shaped("all", 0, 1, true);
    assert_eq!(bytes[4..8], VERSION.to_le_bytes());
    let file = NetFile::parse(&bytes).unwrap();
    assert!(file.shape.pairwise);
    assert_eq!(file.shape.to_string(), "(768 -> 64)x2 -> pairwise 64 -> 32 -> 1");
    assert_eq!(file.shape.short_name(), "64x2p-32-1");
    assert_eq!(file.tensors.hidden_weights.len(), 32 * 64);
    assert_eq!(file.to_bytes(), bytes);
    // The same weights read as a plain net (the activation field dropped,
    // twice the first layer's inputs) would not fit the file: the shape
    // decides the layout. (That the engine's integer products follow the
    // float net's is `quantized_agrees_with_float_reference`'s.)
    let mut plain = file.clone();
    plain.shape.pairwise = false;
    assert!(matches!(NetFile::parse(&plain.to_bytes()), Err(FormatError::Truncated { .. })));
    // An activation this build does not know is refused with the cause:
    // the field after the sizes and bucket count (magic, version, "all"
    // with its length, the description with its length, 4 sizes, buckets).
    let mut unknown = bytes.clone();
    let field = 4 + 4 + 2 + 3 + 4 + file.description.len() + 4 * 4 + 4;
    assert_eq!(unknown[field..field + 4], 1u32.to_le_bytes(), "the activation field");
    unknown[field] = 7;
    let body = unknown.len() - 8;
    let sum = super::format::checksum(&unknown[..body]);
    unknown[body..].copy_from_slice(&sum.to_le_bytes());
    let err = NetFile::parse(&unknown).unwrap_err();
    assert!(err.to_string().contains("unknown activation 7"), "{err}");
    // A pairwise net of an odd width cannot be split in halves.
    let mut odd = file.clone();
    odd.shape.ft = 63;
    let err = NetFile::parse(&odd.to_bytes()).unwrap_err();
    assert!(err.to_string().contains("odd width 63"), "{err}");
}
