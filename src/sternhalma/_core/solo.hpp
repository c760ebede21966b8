// One seat alone on the board: a beam search for a short way home, the same search as
// sternhalma/solo.py's `beam` (the reference; tests/test_solo_core.py holds the two equal).
// Breadth-first by moves; after each move only the `width` positions nearest the goal
// are kept (nearest by the caller's weights per hole, ties in the order the moves were
// found); a position kept once is never kept again. The first position found with every
// marble in the goal ends the search: its moves are a real way home, an upper bound.
#pragma once

#include <algorithm>
#include <cstdint>
#include <unordered_set>
#include <vector>

#include "race.hpp"

namespace sternhalma {

// The beam's result: found (false when the beam died out or ran past max_moves), the
// moves home in order, and the positions looked at.
struct SoloResult {
    bool found = false;
    std::vector<Move> moves;
    std::uint64_t positions = 0;
};

template <int W>
SoloResult solo_beam(const RaceTables<W>& tables, int seat, const Bits<W>& own,
                     const std::vector<std::int64_t>& weights, std::size_t width,
                     int max_moves) {
    using B = Bits<W>;
    struct Entry {
        std::int64_t distance;
        B marbles;
        std::int32_t parent;
        Move move;
    };
    SoloResult result;
    const B& goal = tables.goal(seat);
    auto finished = [&](const B& m) { return (m & goal) == m; };
    if (finished(own)) {
        result.found = true;
        return result;
    }
    std::int64_t start_distance = 0;
    own.each([&](int h) { start_distance += weights[static_cast<std::size_t>(h)]; });
    std::vector<std::vector<Entry>> levels;
    levels.push_back({Entry{start_distance, own, -1, Move{0, 0}}});
    std::unordered_set<B, BitsHash<W>> seen{own};
    std::vector<Move> found;
    std::vector<Entry> children;
    std::unordered_set<B, BitsHash<W>> fresh;
    while (static_cast<int>(levels.size()) <= max_moves) {
        children.clear();
        fresh.clear();
        const std::vector<Entry>& level = levels.back();
        for (std::size_t index = 0; index < level.size(); ++index) {
            const Entry& entry = level[index];
            found.clear();
            tables.moves(entry.marbles, entry.marbles, seat, found);
            for (const Move& m : found) {
                B after = entry.marbles;
                after.flip(m.start);
                after.flip(m.end);
                if (seen.count(after) || !fresh.insert(after).second) continue;
                const std::int64_t near = entry.distance - weights[static_cast<std::size_t>(m.start)] +
                                          weights[static_cast<std::size_t>(m.end)];
                children.push_back(Entry{near, after, static_cast<std::int32_t>(index), m});
                if (finished(after)) {
                    result.positions += children.size();
                    result.found = true;
                    // Back from the goal to the root along the parents.
                    result.moves.push_back(m);
                    std::int32_t parent = static_cast<std::int32_t>(index);
                    for (std::size_t d = levels.size() - 1; d > 0; --d) {
                        const Entry& e = levels[d][static_cast<std::size_t>(parent)];
                        result.moves.push_back(e.move);
                        parent = e.parent;
                    }
                    std::reverse(result.moves.begin(), result.moves.end());
                    return result;
                }
            }
        }
        result.positions += children.size();
        if (children.empty()) return result;
        std::stable_sort(children.begin(), children.end(),
                         [](const Entry& a, const Entry& b) { return a.distance < b.distance; });
        if (children.size() > width) children.resize(width);
        for (const Entry& e : children) seen.insert(e.marbles);
        levels.push_back(children);
    }
    return result;
}

}  // namespace sternhalma
