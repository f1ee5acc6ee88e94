//! The tray icon with its badge: the app's icon with a red dot in its top right corner while an agent
//! needs the user. (The StatusNotifierItem protocol has no badge of its own: the count goes beside the
//! icon as its label, and the dot is what a panel too narrow for the label still shows.)

/// The dot's colour, opaque, and the ring around it that keeps it apart from the icon.
const DOT: [u8; 4] = [0xd9, 0x30, 0x25, 0xff];
const RING: [u8; 4] = [0xff, 0xff, 0xff, 0xff];

/// `rgba` (`width` x `height`, 4 bytes a pixel) with the dot drawn over it.
pub fn badged(rgba: &[u8], width: u32, height: u32) -> Vec<u8> {
    let mut out = rgba.to_vec();
    let size = width.min(height) as f32;
    let radius = size * 0.22;
    let ring = (size / 24.0).max(1.0);
    let (cx, cy) = (width as f32 - radius - ring, radius + ring);
    for y in 0..height {
        for x in 0..width {
            let (dx, dy) = (x as f32 + 0.5 - cx, y as f32 + 0.5 - cy);
            let d = (dx * dx + dy * dy).sqrt();
            let colour = if d <= radius {
                DOT
            } else if d <= radius + ring {
                RING
            } else {
                continue;
            };
            let at = ((y * width + x) * 4) as usize;
            if let Some(pixel) = out.get_mut(at..at + 4) {
                pixel.copy_from_slice(&colour);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pixel(rgba: &[u8], width: u32, x: u32, y: u32) -> [u8; 4] {
        let at = ((y * width + x) * 4) as usize;
        rgba[at..at + 4].try_into().unwrap()
    }

    #[test]
    fn the_dot_is_in_the_top_right_corner_and_the_rest_untouched() {
        let (w, h) = (32, 32);
        let icon = vec![0x10; (w * h * 4) as usize];
        let badged = badged(&icon, w, h);
        assert_eq!(badged.len(), icon.len());
        assert_eq!(pixel(&badged, w, 24, 7), DOT);
        assert_eq!(pixel(&badged, w, 2, 30), [0x10; 4]);
        assert_eq!(pixel(&badged, w, 2, 2), [0x10; 4]);
        assert_eq!(pixel(&badged, w, 24, 30), [0x10; 4]);
    }

    #[test]
    fn a_short_buffer_is_drawn_where_it_can_be_without_a_panic() {
        assert_eq!(badged(&[0; 8], 32, 32).len(), 8);
    }
}
