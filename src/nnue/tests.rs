//! Format errors, quantized vs float agreement, scalar vs AVX2 identity.

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};

use super::format::{FormatError, NetFile};
use super::network::{FloatNetwork, NetError, Network};
use crate::features::FeatureSet;

fn random_file(expr: &str, hidden2: usize) -> (FloatNetwork, Vec<u8>) {
    let fs: FeatureSet = expr.parse().unwrap();
    let float = FloatNetwork::random(&fs, 64, 32, hidden2, 7);
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
    for (expr, hidden2) in [("all", 0), ("all+ph+pv", 0), ("ka", 16), ("mb+mc", 0)] {
        let (float, bytes) = random_file(expr, hidden2);
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
fn scalar_and_avx2_evaluate_identically() {
    for (expr, hidden2) in [("all", 0), ("kp+ph", 32)] {
        let (_, bytes) = random_file(expr, hidden2);
        let mut scalar = Network::from_bytes(&bytes).unwrap();
        scalar.force_scalar(true);
        let vector = Network::from_bytes(&bytes).unwrap();
        for pos in positions() {
            assert_eq!(scalar.evaluate_position(&pos), vector.evaluate_position(&pos), "{expr}");
        }
    }
}
