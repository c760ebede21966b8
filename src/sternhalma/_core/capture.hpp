// Capture chains (capture Chinese checkers), one per resulting position, in the order of
// CaptureRules.distinct_moves in sternhalma/rules/capture.py, the reference
// (tests/test_core.py holds the two equal, order and all). Capture's search lists them at
// every inner node; in Python that was four fifths of its time.
#pragma once

#include <cstdint>
#include <unordered_set>
#include <utility>
#include <vector>

#include "bitboard.hpp"
#include "rays.hpp"

namespace sternhalma {

template <int W>
class CaptureTables {
public:
    using B = Bits<W>;

    // rays[h][d]: the holes from h outward in direction d, nearest first (the board's).
    CaptureTables(int size, const std::vector<std::vector<std::vector<int>>>& rays,
                  bool long_jumps)
        : jumps_(size, rays, long_jumps) {}

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
                for (const auto& ray : jumps_.from(frame.hole)) {
                    const Jump jump = jumps_.jump(frame.hole, ray, frame.left);
                    if (jump.land < 0) continue;
                    B after = frame.left;
                    after.flip(jump.over);
                    if (!states.insert({jump.land, after}).second) continue;
                    std::vector<std::int16_t> longer = frame.path;
                    longer.push_back(jump.land);
                    B board = after;
                    board.set(jump.land);
                    if (boards.insert(board).second) out(longer);
                    stack.push_back(Frame{jump.land, after, std::move(longer)});
                }
            }
        });
    }

private:
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
    RayJumps<W> jumps_;
};

}  // namespace sternhalma
