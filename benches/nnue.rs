//! Criterion benches of the network: incremental update vs full refresh,
//! full evaluation, AVX2 vs scalar kernels.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use shakmaty::{Chess, Position};

use tessera::bench::POSITIONS;
use tessera::board::Board;
use tessera::features::FeatureSet;
use tessera::nnue::network::{FloatNetwork, Network};

fn network(expr: &str, scalar: bool) -> Arc<Network> {
    let fs: FeatureSet = expr.parse().unwrap();
    let bytes = FloatNetwork::random(&fs, 512, 32, 0, 1).quantize("bench").to_bytes();
    let mut net = Network::from_bytes(&bytes).unwrap();
    net.force_scalar(scalar);
    Arc::new(net)
}

fn positions() -> Vec<Chess> {
    POSITIONS.iter().take(16).map(|f| Board::from_fen(f, false).unwrap().pos().clone()).collect()
}

fn updates(c: &mut Criterion) {
    for expr in ["all", "ka", "all+ph+pv"] {
        for (kernel, scalar) in [("avx2", false), ("scalar", true)] {
            let net = network(expr, scalar);
            let mut group = c.benchmark_group(format!("{expr} {kernel}"));
            // Incremental: push and pop every legal move, evaluating each child.
            group.bench_function("incremental push+eval+pop", |b| {
                let mut board = Board::from_fen(POSITIONS[1], false).unwrap();
                board.attach_network(net.clone());
                let moves = board.pos().legal_moves();
                b.iter(|| {
                    for &m in &moves {
                        board.push(m);
                        black_box(board.nnue_evaluate());
                        board.pop();
                    }
                })
            });
            // Refresh: the same children evaluated from scratch.
            group.bench_function("refresh+eval", |b| {
                let board = Board::from_fen(POSITIONS[1], false).unwrap();
                let children: Vec<Chess> = board
                    .pos()
                    .legal_moves()
                    .iter()
                    .map(|&m| {
                        let mut p = board.pos().clone();
                        p.play_unchecked(m);
                        p
                    })
                    .collect();
                b.iter(|| children.iter().map(|p| net.evaluate_position(black_box(p))).sum::<i32>())
            });
            let ps = positions();
            group.bench_function("full evaluation (16 positions)", |b| {
                b.iter(|| ps.iter().map(|p| net.evaluate_position(black_box(p))).sum::<i32>())
            });
            group.finish();
        }
    }
}

criterion_group!(benches, updates);
criterion_main!(benches);
