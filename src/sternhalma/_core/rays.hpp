// Jumps along a board's rays, the one rule both games jump by (rules.md): the piece
// jumped is the nearest on the ray, k + 1 holes away, and the landing is k + 1 holes
// beyond it, every hole between empty; without long jumps k is 0. race.hpp's long jumps
// and capture.hpp's chains use it.
// A ray's holes are one board: the holes are numbered row by row, so along a ray they
// only rise or only fall (module.cpp's check_rays refuses others), and the nearest piece
// on it is the board's lowest or highest bit.
#pragma once

#include <algorithm>
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

// The same long jumps by the board's lines: a ray from a hole is the rest of its line one
// way, so with the pieces on each line as a small mask per way along it (bit i: the i-th
// hole that way) the nearest piece and whether the holes beyond it are clear take a few
// shifts and no branch, where a bitboard takes a search per ray. Built only where every
// ray is the rest of a line of at most 32 holes (`ok`; the star's are).
template <int W>
class RayLines {
public:
    using B = Bits<W>;

    RayLines(int size, const std::vector<std::vector<std::vector<int>>>& rays)
        : holes_(static_cast<std::size_t>(size)) {
        const auto pair = [&](int a, int b) { return static_cast<std::size_t>(a * size + b); };
        // behind[a * size + b]: the hole whose ray begins a, b (the line's hole before a).
        std::vector<int> behind(static_cast<std::size_t>(size * size), -1);
        for (int h = 0; h < size; ++h)
            for (const auto& ray : rays[static_cast<std::size_t>(h)])
                if (ray.size() >= 2) behind[pair(ray[0], ray[1])] = h;
        std::vector<std::vector<int>> lines;
        std::vector<int> line_at(static_cast<std::size_t>(size * size), -1);  // by its first two holes
        for (int h = 0; h < size && ok_; ++h) {
            Hole& hole = holes_[static_cast<std::size_t>(h)];
            for (const auto& ray : rays[static_cast<std::size_t>(h)]) {
                if (ray.empty()) continue;
                // The line: back from h while a hole's ray runs into h, ray[0]; h; the ray.
                std::vector<int> line;
                for (int cur = h, next = ray[0]; line.size() <= static_cast<std::size_t>(size);) {
                    const int prev = behind[pair(cur, next)];
                    if (prev < 0) break;
                    line.insert(line.begin(), prev);
                    next = cur;
                    cur = prev;
                }
                line.push_back(h);
                line.insert(line.end(), ray.begin(), ray.end());
                if (line.front() > line.back()) std::reverse(line.begin(), line.end());
                int& id = line_at[pair(line[0], line[1])];
                if (id < 0) {
                    id = static_cast<int>(lines.size());
                    lines.push_back(line);
                }
                const std::vector<int>& known = lines[static_cast<std::size_t>(id)];
                const auto place = std::find(known.begin(), known.end(), h) - known.begin();
                const auto length = static_cast<std::ptrdiff_t>(known.size());
                if (line != known || length > 32 || hole.n_rays == 8) {
                    ok_ = false;
                    break;
                }
                const bool up = place + 1 < length && known[static_cast<std::size_t>(place + 1)] == ray[0];
                // The ray must be the rest of the line that way.
                const std::vector<int> rest = up ? std::vector<int>(known.begin() + place + 1, known.end())
                                                 : std::vector<int>(known.rend() - place, known.rend());
                if (rest != ray) {
                    ok_ = false;
                    break;
                }
                const auto way = static_cast<std::uint16_t>(2 * id + (up ? 0 : 1));
                const auto len = static_cast<std::uint8_t>(length);
                hole.rays[static_cast<std::size_t>(hole.n_rays++)] =
                    Step{way, static_cast<std::uint8_t>(up ? place : length - 1 - place), len};
                bool listed = false;
                for (int i = 0; i < hole.n_lines; ++i)
                    listed = listed || hole.lines[static_cast<std::size_t>(i)].way == 2 * id;
                if (!listed && hole.n_lines < 8)
                    hole.lines[static_cast<std::size_t>(hole.n_lines++)] =
                        Step{static_cast<std::uint16_t>(2 * id), static_cast<std::uint8_t>(place), len};
            }
        }
        for (const auto& line : lines) {
            std::array<std::uint8_t, 32> up{}, down{};
            for (std::size_t i = 0; i < line.size() && i < 32; ++i) {
                up[i] = static_cast<std::uint8_t>(line[i]);
                down[i] = static_cast<std::uint8_t>(line[line.size() - 1 - i]);
            }
            places_.push_back(up);
            places_.push_back(down);
        }
    }

    bool ok() const { return ok_; }
    // How many masks `flip` and `landings` read: one per line and way.
    std::size_t ways() const { return places_.size(); }

    // Adds or takes away the piece on `hole` in the masks.
    void flip(std::uint64_t* masks, int hole) const {
        const Hole& h = holes_[static_cast<std::size_t>(hole)];
        for (int i = 0; i < h.n_lines; ++i) {
            const Step& s = h.lines[static_cast<std::size_t>(i)];
            masks[s.way] ^= std::uint64_t{1} << s.at;
            masks[s.way + 1] ^= std::uint64_t{1} << (s.length - 1 - s.at);
        }
    }

    // The holes one long jump from `hole` over the pieces in `masks`.
    B landings(int hole, const std::uint64_t* masks) const {
        const Hole& h = holes_[static_cast<std::size_t>(hole)];
        B out;
        for (int i = 0; i < h.n_rays; ++i) {
            const Step& s = h.rays[static_cast<std::size_t>(i)];
            const std::uint64_t beyond = masks[s.way] >> (s.at + 1);  // the nearest at bit 0
            // The nearest piece is k + 1 holes away (none: k = 40, no landing on the line);
            // the landing as far beyond it, with every hole to it empty.
            const int k = __builtin_ctzll(beyond | (std::uint64_t{1} << 40));
            const int land = s.at + 2 * k + 2;
            const bool clear =
                (land < s.length) & (((beyond >> (k + 1)) & ((std::uint64_t{2} << k) - 1)) == 0);
            out.set_if(places_[s.way][static_cast<std::size_t>(clear ? land : 0)], clear);
        }
        return out;
    }

private:
    struct Step {  // a ray (or a line): its way along a line, the hole's place that way, the line's length
        std::uint16_t way;
        std::uint8_t at;
        std::uint8_t length;
    };
    struct Hole {
        std::array<Step, 8> rays{};
        std::array<Step, 8> lines{};  // the lines through it, each by its first way
        int n_rays = 0, n_lines = 0;
    };

    bool ok_ = true;
    std::vector<Hole> holes_;
    std::vector<std::array<std::uint8_t, 32>> places_;  // per way: the holes by place
};

}  // namespace sternhalma
