// Capture chains (capture Chinese checkers), one per resulting position, in the order of
// CaptureRules.distinct_moves in sternhalma/rules/capture.py, the reference
// (tests/test_core.py holds the two equal, order and all). Capture's search lists them at
// every inner node; in Python that was four fifths of its time.
#pragma once

#include <algorithm>
#include <cstdint>
#include <unordered_set>
#include <utility>
#include <vector>

#include "bitboard.hpp"

namespace sternhalma {

template <int W>
class CaptureTables {
public:
    using B = Bits<W>;

    // rays[h][d]: the holes from h outward in direction d, nearest first (the board's).
    CaptureTables(const std::vector<std::vector<std::vector<int>>>& rays, bool long_jumps)
        : jumps_(rays.size()) {
        for (std::size_t h = 0; h < rays.size(); ++h) {
            for (const auto& ray : rays[h]) {
                // The piece k holes away is jumped when the k holes before it (so no entry
                // before this one matched) and the k after it are empty, landing 2k + 1 away.
                std::vector<Jump> entries;
                const std::size_t reach = long_jumps ? ray.size() : std::min<std::size_t>(ray.size(), 1);
                for (std::size_t k = 0; k < reach; ++k) {
                    const std::size_t far = 2 * k + 1;
                    Jump jump{static_cast<std::int16_t>(ray[k]), -1, B{}};
                    if (far < ray.size()) {
                        jump.land = static_cast<std::int16_t>(ray[far]);
                        for (std::size_t i = k + 1; i <= far; ++i) jump.empty.set(ray[i]);
                    }
                    entries.push_back(jump);
                }
                if (!entries.empty()) jumps_[h].push_back(std::move(entries));
            }
        }
    }

    // Calls out(path) for one chain per resulting position, depth first from each piece in
    // turn: a chain reaching a (hole, pieces left) state already seen is cut, since all
    // that follows it was produced, and one whose board was produced is not given.
    template <class F>
    void distinct(const B& pieces, F&& out) const {
        std::unordered_set<std::pair<int, B>, StateHash> states;
        std::unordered_set<B, BitsHash<W>> boards;
        std::vector<Frame> stack;
        pieces.each([&](int start) {
            B rest = pieces;
            rest.flip(start);
            stack.push_back(Frame{start, rest, {static_cast<std::int16_t>(start)}});
            while (!stack.empty()) {
                Frame frame = std::move(stack.back());
                stack.pop_back();
                for (const auto& direction : jumps_[static_cast<std::size_t>(frame.hole)]) {
                    for (const Jump& jump : direction) {
                        if (!frame.left.test(jump.over)) continue;
                        if (jump.land >= 0 && !(frame.left & jump.empty).any()) {
                            B after = frame.left;
                            after.flip(jump.over);
                            if (!states.insert({jump.land, after}).second) break;
                            std::vector<std::int16_t> longer = frame.path;
                            longer.push_back(jump.land);
                            B board = after;
                            board.set(jump.land);
                            if (boards.insert(board).second) out(longer);
                            stack.push_back(Frame{jump.land, after, std::move(longer)});
                        }
                        break;  // the first piece in a direction decides it
                    }
                }
            }
        });
    }

private:
    struct Jump {
        std::int16_t over;
        std::int16_t land;  // -1: no room to land beyond it
        B empty;            // the holes that must be empty: those after it, the landing's too
    };
    struct Frame {
        int hole;
        B left;
        std::vector<std::int16_t> path;
    };
    struct StateHash {
        std::size_t operator()(const std::pair<int, B>& s) const {
            return BitsHash<W>{}(s.second) ^ (static_cast<std::size_t>(s.first) * 0x9E3779B97F4A7C15ULL);
        }
    };
    std::vector<std::vector<std::vector<Jump>>> jumps_;  // per hole, per direction, nearest first
};

}  // namespace sternhalma
