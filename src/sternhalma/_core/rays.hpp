// Jumps along a board's rays, the one rule both games jump by (rules.md): the piece
// jumped is the nearest on the ray, k + 1 holes away, and the landing is k + 1 holes
// beyond it, every hole between empty; without long jumps k is 0. race.hpp's long jumps
// and capture.hpp's chains use it.
// A ray's holes are one board: the holes are numbered row by row, so along a ray they
// only rise or only fall (module.cpp's check_rays refuses others), and the nearest piece
// on it is the board's lowest or highest bit.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "bitboard.hpp"

namespace sternhalma {

struct Jump {
    std::int16_t over;
    std::int16_t land;
};

template <int W>
class RayJumps {
public:
    using B = Bits<W>;
    struct Ray {
        B holes;
        bool rising;
    };
    // A hole's rays (up to 8), in the board's order of directions.
    struct Rays {
        std::array<Ray, 8> at{};
        int n = 0;
        const Ray* begin() const { return at.data(); }
        const Ray* end() const { return at.data() + n; }
    };

    // rays[h][d]: the holes from h outward in direction d, nearest first.
    RayJumps(int size, const std::vector<std::vector<std::vector<int>>>& rays, bool long_jumps)
        : size_(size),
          rays_(static_cast<std::size_t>(size)),
          landing_(static_cast<std::size_t>(size * size), -1) {
        for (int h = 0; h < size; ++h) {
            Rays& out = rays_[static_cast<std::size_t>(h)];
            for (const auto& ray : rays[static_cast<std::size_t>(h)]) {
                if (ray.empty()) continue;
                Ray& r = out.at[static_cast<std::size_t>(out.n++)];
                r.rising = ray[0] > h;
                const std::size_t reach = long_jumps ? ray.size() : 1;
                for (std::size_t k = 0; k < ray.size(); ++k) {
                    r.holes.set(ray[k]);
                    if (k < reach && 2 * k + 1 < ray.size())
                        landing_[static_cast<std::size_t>(h * size + ray[k])] =
                            static_cast<std::int16_t>(ray[2 * k + 1]);
                }
            }
        }
    }

    const Rays& from(int hole) const { return rays_[static_cast<std::size_t>(hole)]; }

    // The jump from `from` along `ray` (one of from(from)) over `pieces`: `land` is -1
    // when there is none (no piece on the ray, no room beyond it, or a piece in the way).
    Jump jump(int from, const Ray& ray, const B& pieces) const {
        B on = ray.holes & pieces;
        if (!on.any()) return Jump{-1, -1};
        const int over = ray.rising ? on.lowest() : on.highest();
        const int land = landing_[static_cast<std::size_t>(from * size_ + over)];
        const auto o16 = static_cast<std::int16_t>(over);
        if (land < 0) return Jump{o16, -1};
        on.flip(over);
        const bool clear =
            !on.any() || (ray.rising ? on.lowest() > land : on.highest() < land);
        return Jump{o16, static_cast<std::int16_t>(clear ? land : -1)};
    }

private:
    int size_;
    std::vector<Rays> rays_;
    std::vector<std::int16_t> landing_;  // [from * size + over]: the landing, or -1
};

}  // namespace sternhalma
