//! `tessera-trainer weights`: a picture of what one first-layer neuron of a
//! net looks at, as in the thesis: its weight for every piece on every
//! square, one 8×8 board per role and side (ours on the top row, theirs
//! below), blue for negative and red for positive, on one scale for all
//! twelve boards.

use std::path::{Path, PathBuf};

use clap::Args as ClapArgs;
use plotters::prelude::*;
use shakmaty::{Role, Square};
use tessera::features::{FeatureSet, piece_square_index};
use tessera::nnue::format::NetFile;

use crate::report::plot;

type Error = Box<dyn std::error::Error>;

#[derive(ClapArgs, Debug)]
pub struct WeightsArgs {
    /// A `.nnue` file whose feature set starts with `all`.
    pub net: PathBuf,
    /// The neuron of the feature transformer to draw (default: the one whose
    /// piece-square weights have the largest norm).
    #[arg(long)]
    pub neuron: Option<usize>,
    /// The PNG to write (default: next to the net, `<net>-neuron-<N>.png`).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// One neuron's 768 piece-square weights, by side (0 ours, 1 theirs), role
/// (pawn … king) and oriented square.
pub struct NeuronPicture {
    pub neuron: usize,
    pub weights: [[[i16; 64]; 6]; 2],
}

/// The weights of `neuron` (or the strongest one) of a net's `all` block.
pub fn neuron_weights(file: &NetFile, neuron: Option<usize>) -> Result<NeuronPicture, Error> {
    let set = FeatureSet::dynamic(&file.features).map_err(|e| format!("the net's feature set: {e}"))?;
    let starts_with_all = set.blocks().first().is_some_and(|(block, offset)| block.name() == "all" && *offset == 0);
    if !starts_with_all {
        return Err(format!(
            "the net's feature set `{}` does not start with `all`: its inputs are not one per piece and square",
            file.features
        )
        .into());
    }
    let ft = file.shape.ft;
    let column = |input: u32| &file.tensors.ft_weights[input as usize * ft..(input as usize + 1) * ft];
    let norm = |n: usize| -> i64 { (0..768).map(|input| i64::from(column(input)[n]).pow(2)).sum() };
    let neuron = match neuron {
        Some(n) if n >= ft => {
            return Err(format!("neuron {n} does not exist: the net has {ft} (0 to {})", ft - 1).into());
        }
        Some(n) => n,
        None => (0..ft).max_by_key(|&n| norm(n)).ok_or("the net has no neurons")?,
    };
    let mut weights = [[[0i16; 64]; 6]; 2];
    for (side, boards) in weights.iter_mut().enumerate() {
        for (role, board) in Role::ALL.iter().zip(boards.iter_mut()) {
            for sq in Square::ALL {
                board[sq as usize] = column(piece_square_index(sq, *role, side == 0))[neuron];
            }
        }
    }
    Ok(NeuronPicture { neuron, weights })
}

/// Blue (negative) through white to red (positive), `v` in −1..1.
fn diverging(v: f64) -> RGBColor {
    let v = v.clamp(-1.0, 1.0);
    let fade = |t: f64| (255.0 * (1.0 - t)).round() as u8;
    if v >= 0.0 { RGBColor(255, fade(v), fade(v)) } else { RGBColor(fade(-v), fade(-v), 255) }
}

pub fn draw(picture: &NeuronPicture, title: &str, path: &Path) -> Result<(), Error> {
    // Labels need a font; without one the boards are drawn alone.
    let labels = plot::register_font().is_ok();
    let (cell, gap, header) = (22i32, 18i32, if labels { 40 } else { 8 });
    let board = 8 * cell;
    let label = if labels { 20 } else { 0 };
    let width = 6 * board + 7 * gap;
    let height = header + 2 * (board + label) + 3 * gap;
    let root = BitMapBackend::new(path, (width as u32, height as u32)).into_drawing_area();
    root.fill(&WHITE)?;
    if labels {
        root.draw(&Text::new(title.to_string(), (gap, 10), ("sans-serif", 18).into_font()))?;
    }
    let scale = picture.weights.iter().flatten().flatten().map(|w| i32::from(*w).abs()).max().unwrap_or(0).max(1);
    let roles = ["pawn", "knight", "bishop", "rook", "queen", "king"];
    for (side, boards) in picture.weights.iter().enumerate() {
        let top = header + gap + side as i32 * (board + label + gap);
        for (role, squares) in boards.iter().enumerate() {
            let left = gap + role as i32 * (board + gap);
            if labels {
                let name = format!("{} {}", ["our", "their"][side], roles[role]);
                root.draw(&Text::new(name, (left, top), ("sans-serif", 14).into_font()))?;
            }
            for sq in Square::ALL {
                // Rank 8 at the top, file a on the left.
                let (file, rank) = (sq.file() as i32, sq.rank() as i32);
                let (x, y) = (left + file * cell, top + label + (7 - rank) * cell);
                let colour = diverging(f64::from(squares[sq as usize]) / f64::from(scale));
                root.draw(&Rectangle::new([(x, y), (x + cell, y + cell)], colour.filled()))?;
            }
            root.draw(&Rectangle::new([(left, top + label), (left + board, top + label + board)], BLACK))?;
        }
    }
    root.present()?;
    Ok(())
}

pub fn run(args: &WeightsArgs) -> Result<(), Error> {
    let bytes = std::fs::read(&args.net).map_err(|e| format!("cannot read {}: {e}", args.net.display()))?;
    let file = NetFile::parse(&bytes).map_err(|e| format!("{}: {e}", args.net.display()))?;
    let picture = neuron_weights(&file, args.neuron)?;
    let out = args.out.clone().unwrap_or_else(|| {
        let stem = args.net.file_stem().map_or("net".into(), |s| s.to_string_lossy().into_owned());
        args.net.with_file_name(format!("{stem}-neuron-{}.png", picture.neuron))
    });
    let title = format!(
        "{}: feature transformer neuron {} (blue negative, red positive; white to move's view)",
        args.net.file_name().map_or(String::new(), |n| n.to_string_lossy().into_owned()),
        picture.neuron
    );
    draw(&picture, &title, &out).map_err(|e| format!("cannot draw {}: {e}", out.display()))?;
    println!("wrote {}", out.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tessera::nnue::format::Shape;
    use tessera::nnue::network::FloatNetwork;

    fn net(features: &str) -> NetFile {
        let fs = FeatureSet::dynamic(features).unwrap();
        let shape = Shape::new(fs.size(), 8, 4, 0, 1);
        FloatNetwork::random_bucketed(&fs, shape, 3).quantize("test")
    }

    #[test]
    fn boards_hold_the_columns_of_the_all_inputs() {
        let file = net("all+ph");
        let picture = neuron_weights(&file, Some(5)).unwrap();
        let ft = file.shape.ft;
        // Their queen on d8 (oriented): the input of `all` for it.
        let input = piece_square_index(Square::D8, Role::Queen, false) as usize;
        assert_eq!(picture.weights[1][4][Square::D8 as usize], file.tensors.ft_weights[input * ft + 5]);
        let input = piece_square_index(Square::E2, Role::Pawn, true) as usize;
        assert_eq!(picture.weights[0][0][Square::E2 as usize], file.tensors.ft_weights[input * ft + 5]);
        // The default is the neuron with the largest norm.
        let best = neuron_weights(&file, None).unwrap();
        let norm = |p: &NeuronPicture| p.weights.iter().flatten().flatten().map(|w| i64::from(*w).pow(2)).sum::<i64>();
        assert!((0..ft).all(|n| norm(&neuron_weights(&file, Some(n)).unwrap()) <= norm(&best)));
    }

    #[test]
    fn other_sets_and_missing_neurons_are_refused() {
        let err = neuron_weights(&net("kp"), None).err().unwrap().to_string();
        assert!(err.contains("does not start with `all`"), "{err}");
        let err = neuron_weights(&net("all"), Some(8)).err().unwrap().to_string();
        assert!(err.contains("neuron 8 does not exist"), "{err}");
    }

    #[test]
    fn draws_a_png() {
        let dir_tmp = tempfile::tempdir().unwrap();
        let dir = dir_tmp.path().to_path_buf();
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("n.png");
        draw(&neuron_weights(&net("all"), Some(0)).unwrap(), "test", &path).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert!(bytes.starts_with(b"\x89PNG"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
