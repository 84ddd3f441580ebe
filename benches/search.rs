//! Criterion benches: move generation (perft) and fixed-depth search.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

use tessera::bench::POSITIONS;
use tessera::board::Board;
use tessera::board::perft::perft;
use tessera::search::search_depth;

fn movegen(c: &mut Criterion) {
    let board = Board::from_fen(POSITIONS[1], false).unwrap();
    c.bench_function("perft 3 kiwipete", |b| b.iter(|| perft(black_box(board.pos()), 3)));
}

fn make_unmake(c: &mut Criterion) {
    use shakmaty::Position;
    let mut board = Board::from_fen(POSITIONS[1], false).unwrap();
    let moves = board.pos().legal_moves();
    c.bench_function("push+pop all moves kiwipete", |b| {
        b.iter(|| {
            for &m in &moves {
                board.push(m);
                black_box(board.key());
                board.pop();
            }
        })
    });
}

fn search(c: &mut Criterion) {
    let boards: Vec<Board> = POSITIONS.iter().take(8).map(|f| Board::from_fen(f, false).unwrap()).collect();
    let mut group = c.benchmark_group("search");
    group.sample_size(10);
    group.bench_function("depth 8, 8 positions", |b| {
        b.iter(|| boards.iter().map(|board| search_depth(board, 8, 16).nodes).sum::<u64>())
    });
    group.finish();
}

criterion_group!(benches, movegen, make_unmake, search);
criterion_main!(benches);
