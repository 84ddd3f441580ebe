//! `cr`: the four castling rights, 4 inputs: our king side, our queen side,
//! their king side, their queen side.

use shakmaty::{CastlingSide, Chess, Move, Position};

use super::{FeatureBlock, Perspective};

#[derive(Default)]
pub struct Cr;

fn rights(pos: &Chess, p: Perspective) -> [bool; 4] {
    let c = pos.castles();
    [
        c.has(p.0, CastlingSide::KingSide),
        c.has(p.0, CastlingSide::QueenSide),
        c.has(!p.0, CastlingSide::KingSide),
        c.has(!p.0, CastlingSide::QueenSide),
    ]
}

impl FeatureBlock for Cr {
    fn name(&self) -> &'static str {
        "cr"
    }

    fn size(&self) -> usize {
        4
    }

    fn active(&self, pos: &Chess, p: Perspective, out: &mut Vec<u32>) {
        out.extend((0..4).filter(|&i| rights(pos, p)[i]).map(|i| i as u32));
    }

    fn changes(
        &self,
        pos: &Chess,
        _m: Move,
        after: &Chess,
        p: Perspective,
        added: &mut Vec<u32>,
        removed: &mut Vec<u32>,
    ) {
        let (old, new) = (rights(pos, p), rights(after, p));
        for i in 0..4 {
            match (old[i], new[i]) {
                (false, true) => added.push(i as u32),
                (true, false) => removed.push(i as u32),
                _ => {}
            }
        }
    }
}
