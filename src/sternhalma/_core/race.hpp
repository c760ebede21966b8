// Move generation for the race games (every star race variant and Halma), the
// same rules as sternhalma/rules/race.py (the reference; tests/test_core.py holds
// the two equal): steps, chains of jumps that never land twice on a hole, long
// jumps, a marble in its goal lands only in the goal, no move ends where the
// seat may not end (another point). Moves are (start, end): the search needs no paths.
// And when a seat has finished (RaceRules.has_finished), the goal's owner's marbles
// counting only when the caller says they do (rules.md#finishing).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "bitboard.hpp"
#include "rays.hpp"

namespace sternhalma {

struct Move {
    std::int16_t start;
    std::int16_t end;
};

// A hole's jumps, one a direction (6 on the star, 8 on Halma's board), kept in place.
struct Jumps {
    std::array<Jump, 8> at{};
    int n = 0;
    const Jump* begin() const { return at.data(); }
    const Jump* end() const { return at.data() + n; }
};

// The chains' components found for one move list (RaceTables::each_marble):
// kept by the caller so that no move list allocates. Its line masks follow the pieces
// from one move list to the next, so it serves one RaceTables only.
template <int W>
struct Reach {
    Bits<W> open;                      // the empty holes in no component yet
    std::array<std::uint8_t, 256> of;  // the other empty holes' components
    std::vector<Bits<W>> holes;        // each component's holes
    std::vector<std::uint64_t> lines;  // with long jumps: the pieces on each line (RayLines)
    Bits<W> on_lines;                  // and the pieces they hold
    void start(const Bits<W>& free) {
        open = free;
        holes.clear();
    }
};

// Board geometry and the seats' goal and end-hole masks of one ruleset.
template <int W>
class RaceTables {
public:
    using B = Bits<W>;
    using Reach = sternhalma::Reach<W>;

    // rays[h][d]: the holes from h outward in direction d, nearest first; owners[s]: the
    // seat whose home is seat s's goal, or -1 (RaceRules.goal_owners).
    RaceTables(int size, const std::vector<std::vector<std::vector<int>>>& rays,
               std::vector<B> goals, std::vector<B> may_end, bool long_jumps,
               std::vector<int> owners, bool anti_blocking)
        : size_(size),
          goals_(std::move(goals)),
          may_end_(std::move(may_end)),
          long_jumps_(long_jumps),
          owners_(std::move(owners)),
          anti_blocking_(anti_blocking),
          neighbours_(static_cast<std::size_t>(size)),
          next_to_(static_cast<std::size_t>(size)),
          jumps_(static_cast<std::size_t>(size)),
          long_jumps_at_(size, rays, long_jumps),
          lines_(long_jumps ? size : 0, rays) {
        for (const B& goal : goals_) {
            long sum = 0;
            goal.each([&](int h) { sum += 2 * h - (size - 1); });
            goal_high_.push_back(sum > 0);
        }
        for (int h = 0; h < size; ++h) {
            all_.set(h);
            for (const auto& ray : rays[static_cast<std::size_t>(h)]) {
                if (!ray.empty()) {
                    neighbours_[static_cast<std::size_t>(h)].push_back(
                        static_cast<std::int16_t>(ray[0]));
                    next_to_[static_cast<std::size_t>(h)].set(ray[0]);
                }
                Jumps& jumps = jumps_[static_cast<std::size_t>(h)];
                if (ray.size() >= 2 && jumps.n < static_cast<int>(jumps.at.size()))
                    jumps.at[static_cast<std::size_t>(jumps.n++)] =
                        Jump{static_cast<std::int16_t>(ray[0]), static_cast<std::int16_t>(ray[1])};
            }
        }
    }

    int size() const { return size_; }
    int seats() const { return static_cast<int>(goals_.size()); }
    const B& all() const { return all_; }
    const B& goal(int seat) const { return goals_[static_cast<std::size_t>(seat)]; }
    int owner(int seat) const { return owners_[static_cast<std::size_t>(seat)]; }

    // Whether `seat` has finished with `boards` (one per seat) on the board: with the
    // anti-blocking rule every goal hole taken and one by an own marble, a marble of the
    // goal's owner filling none while `owner_counts` is false; without it (Halma) every own
    // marble in the goal.
    bool finished(const B* boards, int seat, bool owner_counts) const {
        const B& goal = goals_[static_cast<std::size_t>(seat)];
        const B& own = boards[seat];
        if (!anti_blocking_) return own.any() && (own & goal) == own;
        const int owner = owners_[static_cast<std::size_t>(seat)];
        if (!owner_counts && owner >= 0 && (boards[owner] & goal).any()) return false;
        B occupied;
        for (int s = 0; s < seats(); ++s) occupied |= boards[s];
        return (occupied & goal) == goal && (own & goal).any();
    }

    // Appends every legal move of `seat`'s marbles `own` with `occupied` holes taken,
    // marble by marble in the reference's order (solo.hpp's beam breaks ties by it).
    void moves(const B& own, const B& occupied, int seat, std::vector<Move>& out) const {
        own.each([&](int start) {
            marble_moves(start, occupied, seat, [&](std::int16_t from, std::int16_t to) {
                out.push_back(Move{from, to});
            });
        });
    }

    // The same moves as one set of ends per marble, `out(start, ends)`, only the ends in
    // `wanted(start)` (a marble wanting none is passed over): the search makes its packed
    // moves from them, needs no order, and at alpha-beta's inner nodes only the moves
    // that gain most.
    // Without long jumps, marbles that can jump into the same holes share the chains'
    // search: the holes a chain can reach from a landing are the landing's component in
    // the graph of empty holes linked by a jump over a marble, found once per call. The
    // moving marble's own hole, empty in its chain but a marble in that graph, changes
    // nothing it reaches: a jump moves two holes along a line, so a chain from `start`
    // stays on the holes an even number of steps away along each axis, and the jumps
    // over `start` link holes an odd number away. With long jumps that does not hold, and
    // each marble searches its chains, by the lines' masks (RayLines), found once per call.
    template <class Wanted, class F>
    void each_marble(const B& own, const B& occupied, int seat, Reach& reach, Wanted&& wanted,
                     F&& out) const {
        const B free = ~occupied & all_;
        const B& goal = goals_[static_cast<std::size_t>(seat)];
        const B& may_end = may_end_[static_cast<std::size_t>(seat)];
        reach.start(free);
        const bool by_lines = long_jumps_ && lines_.ok();
        if (by_lines) {
            // Changed only where the pieces did since the last move list (the search's
            // follow each other a move or a few apart).
            if (reach.lines.empty()) reach.lines.assign(lines_.ways(), 0);
            (occupied ^ reach.on_lines).each([&](int h) { lines_.flip(reach.lines.data(), h); });
            reach.on_lines = occupied;
        }
        const auto marble = [&](int start) {
            const B want = wanted(start) & may_end;
            if (!want.any()) return;
            B ends;
            if (by_lines) {
                // A marble in its goal lands only in the goal.
                const bool locked = goal.test(start);
                ends = (next_to_[static_cast<std::size_t>(start)] & free) |
                       long_chains(start, occupied | ~(locked ? goal : all_), reach.lines.data());
                if (locked) ends = ends & goal;
            } else if (long_jumps_ || goal.test(start)) {
                marble_moves(start, occupied, seat, [&](std::int16_t, std::int16_t end) {
                    ends.set(end);
                });
            } else {
                ends = next_to_[static_cast<std::size_t>(start)] & free;
                for (const Jump& j : jumps_[static_cast<std::size_t>(start)])
                    if (occupied.test(j.over) && free.test(j.land))
                        ends |= reach.holes[component(j.land, occupied, reach)];
            }
            out(start, ends & want);
        };
        // The marbles farthest from the goal first: their moves gain most, so a caller
        // keeping the best soonest wants fewer.
        if (goal_high_[static_cast<std::size_t>(seat)])
            own.each(marble);
        else
            own.each_down(marble);
    }

private:
    // One marble's moves, as the reference lists them: its steps, then its chains' ends
    // breadth first.
    template <class F>
    void marble_moves(int start, const B& occupied, int seat, F&& out) const {
        const B free = ~occupied;
        const B& goal = goals_[static_cast<std::size_t>(seat)];
        const bool locked = goal.test(start);
        const B& land_ok = locked ? goal : all_;
        const B& end_ok = locked ? goal : may_end_[static_cast<std::size_t>(seat)];
        const auto s16 = static_cast<std::int16_t>(start);
        const B step_ok = free & end_ok;
        for (std::int16_t n : neighbours_[static_cast<std::size_t>(start)])
            if (step_ok.test(n)) out(s16, n);
        B others = occupied;
        others.flip(start);
        B closed = occupied | ~land_ok;
        std::int16_t stack[512];
        int top = 0, next = 0;
        stack[top++] = s16;
        // Breadth first, as the reference does (the set of ends does not depend on it).
        while (next < top) {
            const int hole = stack[next++];
            if (long_jumps_) {
                for (const auto& ray : long_jumps_at_.from(hole)) {
                    const int land = long_jumps_at_.jump(hole, ray, others).land;
                    if (land >= 0 && !closed.test(land)) {
                        closed.set(land);
                        stack[top++] = static_cast<std::int16_t>(land);
                        if (end_ok.test(land)) out(s16, static_cast<std::int16_t>(land));
                    }
                }
            } else {
                for (const Jump& j : jumps_[static_cast<std::size_t>(hole)]) {
                    if (others.test(j.over) && !closed.test(j.land)) {
                        closed.set(j.land);
                        stack[top++] = j.land;
                        if (end_ok.test(j.land)) out(s16, j.land);
                    }
                }
            }
        }
    }

    // The holes that chains of long jumps from `start` land on, none in `closed` (the
    // occupied holes, its own too, and those it may not land on); `lines`: the pieces on
    // each line (RayLines), the marble's own among them.
    B long_chains(int start, const B& closed, std::uint64_t* lines) const {
        lines_.flip(lines, start);  // its hole is empty while it jumps
        B reached = lines_.landings(start, lines) & ~closed;
        B todo = reached;
        while (todo.any()) {
            const int hole = todo.lowest();
            todo.flip(hole);
            const B next = lines_.landings(hole, lines) & ~(reached | closed);
            reached |= next;
            todo |= next;
        }
        lines_.flip(lines, start);
        return reached;
    }

    // The index in `reach` of the component of the empty hole `hole` (found now if new).
    int component(int hole, const B& occupied, Reach& reach) const {
        if (!reach.open.test(hole)) return reach.of[static_cast<std::size_t>(hole)];
        const int c = static_cast<int>(reach.holes.size());
        B holes, todo = B::bit(hole);
        reach.open.flip(hole);
        while (todo.any()) {
            const int h = todo.lowest();
            todo.flip(h);
            holes.set(h);
            reach.of[static_cast<std::size_t>(h)] = static_cast<std::uint8_t>(c);
            // Its jumps' landings as one board (no branch on each jump).
            B landings;
            for (const Jump& j : jumps_[static_cast<std::size_t>(h)])
                landings.set_if(j.land, occupied.test(j.over));
            landings = landings & reach.open;
            reach.open ^= landings;
            todo |= landings;
        }
        reach.holes.push_back(holes);
        return c;
    }

    int size_;
    std::vector<B> goals_;
    std::vector<B> may_end_;
    bool long_jumps_;
    std::vector<int> owners_;
    bool anti_blocking_;
    B all_;
    std::vector<std::vector<std::int16_t>> neighbours_;
    std::vector<B> next_to_;  // the same as bitboards
    std::vector<bool> goal_high_;  // per seat: whether its goal's holes are mostly the higher
    std::vector<Jumps> jumps_;
    RayJumps<W> long_jumps_at_;  // read with long jumps only
    RayLines<W> lines_;          // the same by lines (each_marble), with long jumps only
};

}  // namespace sternhalma
