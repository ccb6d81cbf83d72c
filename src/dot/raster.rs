//! SVG to PNG in pure Rust (resvg), so that every picture can be a PNG on a machine without graphviz.
//! Text is drawn with the system's fonts (fontconfig's usual folders); with none installed, a
//! picture keeps its shapes and loses its words.

use std::sync::{Arc, OnceLock};

use resvg::{tiny_skia, usvg};

use super::RenderError;

/// The largest picture drawn, in pixels (about 64 MB of pixels); larger ones are scaled down.
pub const MAX_PIXELS: u64 = 16_000_000;

fn fonts() -> Arc<usvg::fontdb::Database> {
    static DB: OnceLock<Arc<usvg::fontdb::Database>> = OnceLock::new();
    DB.get_or_init(|| {
        let mut db = usvg::fontdb::Database::new();
        db.load_system_fonts();
        // the pictures ask for Helvetica, Arial, sans-serif: let sans-serif be a font that is here
        let families: Vec<String> = db
            .faces()
            .flat_map(|f| f.families.iter().map(|(n, _)| n.clone()))
            .collect();
        for want in [
            "Liberation Sans",
            "DejaVu Sans",
            "Noto Sans",
            "FreeSans",
            "Arial",
            "Helvetica",
        ] {
            if families.iter().any(|f| f == want) {
                db.set_sans_serif_family(want);
                break;
            }
        }
        Arc::new(db)
    })
    .clone()
}

/// Whether any font is installed for the text of a rasterised picture.
pub fn have_fonts() -> bool {
    !fonts().is_empty()
}

/// Rasterises an SVG picture at its own size (scaled down past [`MAX_PIXELS`]) on white.
pub fn svg_to_png(svg: &str) -> Result<Vec<u8>, RenderError> {
    let opt = usvg::Options {
        fontdb: fonts(),
        font_family: "sans-serif".into(),
        ..usvg::Options::default()
    };
    let tree = usvg::Tree::from_str(svg, &opt).map_err(|e| RenderError::Raster(e.to_string()))?;
    let size = tree.size();
    let (w, h) = (size.width().max(1.0) as f64, size.height().max(1.0) as f64);
    let scale = ((MAX_PIXELS as f64) / (w * h)).sqrt().min(1.0);
    let (pw, ph) = ((w * scale).ceil() as u32, (h * scale).ceil() as u32);
    let mut pixmap = tiny_skia::Pixmap::new(pw.max(1), ph.max(1))
        .ok_or_else(|| RenderError::Raster(format!("cannot allocate a {pw}x{ph} picture")))?;
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        tiny_skia::Transform::from_scale(scale as f32, scale as f32),
        &mut pixmap.as_mut(),
    );
    pixmap.encode_png().map_err(|e| RenderError::Raster(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_svg_becomes_a_png_of_its_size() {
        let png = svg_to_png(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"30\" height=\"20\"><rect width=\"10\" height=\"10\" fill=\"red\"/></svg>",
        )
        .unwrap();
        assert_eq!(&png[1..4], b"PNG");
        // IHDR: width and height, big-endian, at bytes 16..24
        assert_eq!(u32::from_be_bytes(png[16..20].try_into().unwrap()), 30);
        assert_eq!(u32::from_be_bytes(png[20..24].try_into().unwrap()), 20);
        assert!(svg_to_png("not svg").is_err());
    }
}
