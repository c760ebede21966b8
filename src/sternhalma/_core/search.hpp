// Hard's search for the race games: the one implementation (players/race.py chooses
// the search and holds its settings' defaults; players/fallback.py is a plain Python
// search for machines without this core, with no promise of the same moves).
// tests/test_core.py holds it to brute force: alpha-beta to a plain minimax's value
// (beside full goals too, the owner's marbles counting or not), the beam alone on the
// board to a breadth-first search's fewest moves home.
//
// Why each part is as it is:
// - A move is one int, its gain in the evaluation, start and end packed so that sorting
//   the ints sorts by gain: generating, ordering and playing moves needs no paths, and a
//   move changes the evaluation's sums by two table look-ups, so the horizon's moves are
//   judged without nodes of their own (frontier).
// - Alpha-beta's inner nodes keep only the breadth most promising moves (the rival's
//   reply_breadth): enough to see the rival block, not only race; the root every option.
//   A move after the first is searched with a null window first (principal variation
//   search): only one that beats the best so far is searched again with the full window,
//   the same values on fewer nodes.
// - The allowance mostly runs out inside an iteration. Its options are searched in the
//   last iteration's order, so once the first (the last best) is searched, an option
//   proved better at the new depth is the better guess: it is played (it beat the last
//   best in a sequential test, docs/measurements.md).
// - The forecast plans on the rival's racing move (its one biggest gain in rows, as
//   Medium plays): far behind, or racing, its blocking no longer wins it the game, and
//   planning on its likely moves finishes sooner than guarding against its worst one.
// - Solo plans our race alone, the rivals' marbles standing: when nobody is left to
//   meet, and with three who never meet head on (classic-3), who cross our way only in
//   passing.
// - The beam (solo, forecast): ply by ply the best positions go on, each once however it
//   was reached, so a plan looks twenty moves ahead where depth-first search on the same
//   nodes looks five; racing needs that: a ladder pays off moves after it is built.
// - Playouts (three or more meeting head on): the crowd's marbles are rungs and
//   obstacles that move between our moves; playing the next moves out many times, the
//   rivals racing (which of their biggest gains by chance) and we playing our best move
//   by the evaluation, sees which options still pay after the others moved. Every
//   option meets the same random numbers in its n-th playout, so the options differ by
//   themselves, not by luck.
// - Nodes decide, the clock is only a cap: the same position, seed and allowance give
//   the same move on any machine.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <utility>
#include <vector>

#include "race.hpp"

namespace sternhalma {

constexpr std::int64_t WIN = std::int64_t{1} << 40;
constexpr std::int64_t BIAS = std::int64_t{1} << 20;
constexpr int MAX_SEATS = 6;

inline int move_start(std::int64_t key) { return static_cast<int>((key >> 9) & 511); }
inline int move_end(std::int64_t key) { return static_cast<int>(key & 511); }
inline std::int64_t move_gain(std::int64_t key) { return (key >> 18) - BIAS; }

// The evaluation's tables (players/evaluate.py), per seat.
struct Evaluation {
    std::vector<std::vector<std::int64_t>> costs;
    std::vector<std::vector<std::int64_t>> to_go;
    std::vector<std::int64_t> divisor;
    std::int64_t group = 0;

    std::int64_t value(int seat, std::int64_t cost, std::int64_t rows) const {
        return cost - group * rows * rows / divisor[static_cast<std::size_t>(seat)];
    }
};

// The searches, by the position (players/race.py chooses; the binding names them alike).
enum class Search { solo, alphabeta, forecast, playout };

// One decision's settings. players/race.py holds the defaults (its DuelSettings,
// CrowdSettings, SoloSettings) and sets every field; a count left at 0 is refused.
struct SearchSettings {
    int me = 0;
    std::vector<int> rivals;
    std::vector<int> opponents;  // the rivals not on our team
    // Per seat: whether its goal's owner's marbles count toward filling it (rules.md#finishing),
    // as the referee says at the root; the search keeps it throughout.
    std::array<bool, MAX_SEATS> owner_counts{true, true, true, true, true, true};
    Search search = Search::solo;
    int breadth = 0;          // alpha-beta: own moves kept at inner nodes
    int reply_breadth = 0;    // and the rival's
    int max_depth = 0;        // and the deepest iteration
    int rival_weight = 0;     // a rival's way to go in percent of ours (evaluation, playouts)
    int beam_width = 0;       // solo and forecast plan with a beam this wide
    int beam_depth = 0;       // and this many plies deep
    int playout_moves = 0;    // playouts: how many moves of ours each lasts
    int playout_options = 0;  // and how many of our options are played out
    std::uint64_t nodes = 0;
    double seconds = -1;  // < 0: no clock
    // Asked every 1,024 nodes whether to stop now (a signal came: the job was given up);
    // null: never. The search then throws Interrupted, leaving the caller to say why.
    bool (*interrupted)() = nullptr;
};

// Thrown out of RaceSearcher::choose when SearchSettings::interrupted says so.
struct Interrupted {};

struct SearchResult {
    std::int64_t best = 0;   // the packed move chosen
    int depth = 0;           // the deepest iteration, ply of the beam or playout round done
    std::uint64_t used = 0;  // nodes
    std::int64_t score = 0;  // alpha-beta: the chosen move's value at that depth
    // The principal line, packed moves from the chosen one on: alpha-beta's in turn (ours,
    // the rival's, ...), the beam's our own plan (the forecast's with the rival's foreseen
    // move before each of ours after the first, 0 where it stays); none for the playouts.
    std::vector<std::int64_t> line;
};

template <int W>
class RaceSearcher {
public:
    using B = Bits<W>;
    struct Pos {
        std::array<B, MAX_SEATS> m{};
        bool operator==(const Pos& o) const { return m == o.m; }
    };
    using Sums = std::array<std::int64_t, 2 * MAX_SEATS>;

    RaceSearcher(const RaceTables<W>& tables, const Evaluation& eval, bool last_reply,
                 SearchSettings settings)
        : t_(tables),
          e_(eval),
          last_reply_(last_reply),
          s_(std::move(settings)),
          seats_(tables.seats()),
          after_us_(s_.rivals),
          tt_(s_.me, s_.rivals.empty() ? s_.me : s_.rivals[0]),
          moves_(static_cast<std::size_t>(std::max(s_.max_depth, 0) + 1)) {
        for (const std::vector<std::int64_t>& cost : e_.costs) within_.push_back(Within::of(cost));
        // Only the searches in which rivals race list racing moves.
        if (s_.search == Search::forecast || s_.search == Search::playout)
            for (const std::vector<std::int64_t>& to_go : e_.to_go)
                near_tip_.push_back(Within::of(to_go));
        if (s_.search == Search::forecast) forecast_seen_.reset(1024);
        // Per seat, the group term for every number of rows to go up to the divisor (the
        // marbles times the goal tip's row, the most there are; players/evaluate.py).
        for (std::size_t seat = 0; seat < e_.divisor.size(); ++seat) {
            auto& group = group_.emplace_back();
            const std::int64_t most = std::min<std::int64_t>(e_.divisor[seat], 4096);
            for (std::int64_t rows = 0; rows <= most; ++rows)
                group.push_back(e_.group * rows * rows / e_.divisor[seat]);
        }
        std::stable_sort(after_us_.begin(), after_us_.end(), [&](int a, int b) {
            return (a - s_.me + seats_) % seats_ < (b - s_.me + seats_) % seats_;
        });
        // At most a list a node, reserved at once: growing would copy it and touch twice the
        // memory (its untouched pages cost nothing, except under AddressSanitizer). A list
        // is counted at most 32 moves long: a wider breadth (the brute-force tests' 999)
        // keeps every move, and most positions have far fewer than it.
        if (s_.search == Search::alphabeta) {
            const int longest = std::min(std::max(s_.breadth, s_.reply_breadth), 32);
            listed_.reserve(std::min<std::uint64_t>(s_.nodes, 1 << 20) *
                            static_cast<std::size_t>(longest + 1));
        }
        if (s_.seconds >= 0)
            stop_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(s_.seconds));
    }

    SearchResult choose(const Pos& marbles, std::vector<std::int64_t> order) {
        Sums sums{};
        for (int s = 0; s < seats_; ++s) {
            marbles.m[static_cast<std::size_t>(s)].each([&](int h) {
                sums[static_cast<std::size_t>(2 * s)] += cost(s, h);
                sums[static_cast<std::size_t>(2 * s + 1)] += rows(s, h);
            });
        }
        SearchResult result;
        result.best = order.front();
        if (s_.search == Search::playout) {
            result.best = playouts(marbles, sums, order, result.depth);
            result.used = used_;
            return result;
        }
        if (s_.search != Search::alphabeta) {
            result.best = s_.search == Search::forecast
                              ? forecast(marbles, sums, order, result.depth, result.line)
                              : beam(marbles, sums, order, result.depth, result.line);
            result.used = used_;
            return result;
        }
        for (int depth = 1; depth <= s_.max_depth; ++depth) {
            std::int64_t score = 0;
            better_ = 0;
            try {
                order = root(marbles, sums, order, depth, score);
            } catch (const OutOfTime&) {
                if (better_ != 0) {  // the unfinished iteration found a better option
                    result.best = better_;
                    result.score = better_score_;
                    result.depth = depth;
                }
                break;
            }
            result.best = order.front();
            result.score = score;
            result.depth = depth;
            if (spent()) break;
        }
        result.used = used_;
        result.line = principal_line(marbles, result.best, result.depth);
        return result;
    }

private:
    using Clock = std::chrono::steady_clock;
    struct OutOfTime {};
    // Alpha-beta: the option of this iteration that beat the first, and its value (root).
    std::int64_t better_ = 0, better_score_ = 0;
    enum Flag : std::uint8_t { EXACT, LOWER, UPPER };
    static constexpr std::uint32_t NO_LIST = ~std::uint32_t{0};
    struct Entry {
        std::int64_t value;
        std::int64_t best;
        std::int16_t depth;
        Flag flag;
        std::uint32_t list;  // where its best moves by gain begin in ``listed_`` (``ordered``)
    };

    // A position's hash over the seats in play, with whose turn it is; never 0 (the
    // table's empty slot).
    static std::uint64_t hash_of(const Pos& p, int turn, int seats) {
        std::uint64_t h = static_cast<std::uint64_t>(turn) * 0x9E3779B97F4A7C15ULL;
        for (int s = 0; s < seats; ++s)
            for (std::uint64_t w : p.m[static_cast<std::size_t>(s)].w) {
                h ^= w + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
                h *= 0xFF51AFD7ED558CCDULL;
            }
        return (h ^ (h >> 33)) | 1;
    }

    // The transposition table: open addressing in a power-of-two array kept at most three
    // quarters full (half: more memory to fault in and miss the cache than longer probes
    // cost), never forgetting (the entries a map would hold, so the same moves). Most nodes
    // miss it, so a probe reads only the slots' hashes, 8 bytes each, until it meets an
    // empty slot (hash 0) or its own hash; a hit reads one cache line more, the slot's
    // entry with the turn and the boards it is kept for: the two seats that move (the
    // others' marbles stand throughout a search).
    class Table {
    public:
        Table(int seat, int rival) : seats_{seat, rival} {}
        const Entry* find(const Pos& pos, int turn, std::uint64_t hash) const {
            if (hashes_.empty()) return nullptr;
            const std::size_t i = place(pos, turn, hash);
            return hashes_[i] != 0 ? &slots_[i].entry : nullptr;
        }
        void put(const Pos& pos, int turn, std::uint64_t hash, const Entry& entry) {
            if (4 * (count_ + 1) > 3 * hashes_.size()) grow();
            const std::size_t i = place(pos, turn, hash);
            Slot& slot = slots_[i];
            if (hashes_[i] == 0) {
                hashes_[i] = hash;
                slot.turn = static_cast<std::int8_t>(turn);
                slot.boards = boards(pos);
                ++count_;
            }
            slot.entry = entry;
        }

    private:
        struct alignas(64) Slot {  // 64 bytes on the star's board
            Entry entry;
            std::int8_t turn;
            std::array<B, 2> boards;
        };
        static_assert(W > 2 || sizeof(Slot) == 64, "a slot is one cache line on the star");
        std::array<B, 2> boards(const Pos& pos) const {
            return {pos.m[static_cast<std::size_t>(seats_[0])],
                    pos.m[static_cast<std::size_t>(seats_[1])]};
        }
        // The slot holding the position, or the empty slot where it would go.
        std::size_t place(const Pos& pos, int turn, std::uint64_t hash) const {
            std::size_t i = hash & mask_;
            while (hashes_[i] != 0 && !(hashes_[i] == hash && slots_[i].turn == turn &&
                                        slots_[i].boards == boards(pos)))
                i = (i + 1) & mask_;
            return i;
        }
        void grow() {
            const std::size_t size = std::max<std::size_t>(1024, 2 * hashes_.size());
            std::vector<std::uint64_t> hashes(size, 0);
            std::vector<Slot> slots(size);
            hashes.swap(hashes_);
            slots.swap(slots_);
            mask_ = size - 1;
            for (std::size_t i = 0; i < hashes.size(); ++i) {
                if (hashes[i] == 0) continue;
                std::size_t j = hashes[i] & mask_;
                while (hashes_[j] != 0) j = (j + 1) & mask_;
                hashes_[j] = hashes[i];
                slots_[j] = slots[i];
            }
        }
        std::array<int, 2> seats_;
        std::vector<std::uint64_t> hashes_;  // 0: an empty slot
        std::vector<Slot> slots_;
        std::size_t mask_ = 0, count_ = 0;
    };

    std::int64_t cost(int seat, int hole) const {
        return e_.costs[static_cast<std::size_t>(seat)][static_cast<std::size_t>(hole)];
    }
    std::int64_t rows(int seat, int hole) const {
        return e_.to_go[static_cast<std::size_t>(seat)][static_cast<std::size_t>(hole)];
    }
    const B& of(const Pos& p, int seat) const { return p.m[static_cast<std::size_t>(seat)]; }

    void tick() {
        ++used_;
        if (used_ >= s_.nodes || ((used_ & 63) == 0 && s_.seconds >= 0 && Clock::now() >= stop_))
            throw OutOfTime{};
        if ((used_ & 1023) == 0 && s_.interrupted != nullptr && s_.interrupted()) throw Interrupted{};
    }
    bool spent() const {
        return used_ >= s_.nodes || (s_.seconds >= 0 && Clock::now() >= stop_);
    }
    // -- moves ------------------------------------------------------------------
    // A move packed: its gain in ``costs`` (a seat's), start and end.
    static std::int64_t packed(const std::int64_t* costs, int start, int end) {
        return ((costs[start] - costs[end] + BIAS) << 18) | (std::int64_t{start} << 9) | end;
    }
    const std::int64_t* costs(int seat) const {
        return e_.costs[static_cast<std::size_t>(seat)].data();
    }

    // Calls ``f`` with every legal move of ``seat``, packed.
    template <class F>
    void each_packed(const Pos& p, int seat, F&& f) const {
        const std::int64_t* c = costs(seat);
        t_.each_marble(
            of(p, seat), occupied(p), seat, reach_, [&](int) { return t_.all(); },
            [&](int start, const B& ends) {
                ends.each([&](int end) { f(packed(c, start, end)); });
            });
    }

    B occupied(const Pos& p) const {
        B all;
        for (int s = 0; s < seats_; ++s) all |= of(p, s);
        return all;
    }

    // Every legal move of ``seat`` packed, best gain first (packed moves are distinct, so
    // the order is the same however they were generated).
    std::vector<std::int64_t> targets(const Pos& p, int seat) const {
        std::vector<std::int64_t> keys;
        keys.reserve(128);
        each_packed(p, seat, [&](std::int64_t key) { keys.push_back(key); });
        std::sort(keys.begin(), keys.end(), std::greater<>());
        return keys;
    }

    // Alpha-beta's moves at an inner node: ``first`` (the table's best move here, or 0),
    // then the best by gain, ``breadth`` in all (``reply_breadth`` for the rival), into
    // ``kept`` (a list kept per ply, so no node allocates one). A position's best by gain
    // are listed once a search, from ``list`` on in ``listed_`` (NO_LIST: not yet, then
    // set): iterative deepening and transpositions meet it again.
    void ordered(const Pos& p, int seat, std::uint32_t& list, std::int64_t first,
                 std::vector<std::int64_t>& kept) {
        const std::size_t breadth =
            static_cast<std::size_t>(seat == s_.me ? s_.breadth : s_.reply_breadth);
        if (list == NO_LIST) {
            best_by_gain(p, seat, breadth, kept);  // as many as are kept with or without a ``first``
            list = static_cast<std::uint32_t>(listed_.size());
            listed_.push_back(static_cast<std::int64_t>(kept.size()));
            listed_.insert(listed_.end(), kept.begin(), kept.end());
        }
        const std::int64_t* moves = listed_.data() + list + 1;
        const auto n = static_cast<std::size_t>(listed_[list]);
        kept.clear();
        if (first) kept.push_back(first);  // the table's best move is one of this position's
        for (std::size_t i = 0; i < n && kept.size() < breadth; ++i)
            if (moves[i] != first) kept.push_back(moves[i]);
    }

    // ``seat``'s ``count`` best moves by gain into ``kept``, best first. Most moves are
    // never packed: once ``count`` are kept, a marble's ends that cannot gain as much as
    // the worst kept are passed over (one mask of the holes cheap enough, ``within``).
    void best_by_gain(const Pos& p, int seat, std::size_t count,
                      std::vector<std::int64_t>& kept) const {
        kept.clear();
        const std::int64_t* c = costs(seat);
        const auto wanted = [&](int start) -> B {
            if (kept.size() < count) return t_.all();
            return within(seat, c[start] - move_gain(kept.back()));
        };
        t_.each_marble(of(p, seat), occupied(p), seat, reach_, wanted, [&](int start, const B& ends) {
            ends.each([&](int end) {
                const std::int64_t key = packed(c, start, end);
                if (kept.size() < count)
                    kept.push_back(key);
                else if (key > kept.back())
                    kept.back() = key;
                else
                    return;
                // Into its place (a few moves: no call to move memory).
                std::size_t i = kept.size() - 1;
                for (; i > 0 && kept[i - 1] < key; --i) kept[i] = kept[i - 1];
                kept[i] = key;
            });
        });
    }

    // The holes that cost ``seat`` at most ``most``.
    const B& within(int seat, std::int64_t most) const {
        return within_[static_cast<std::size_t>(seat)].at_most(most);
    }

    void play(Pos& p, Sums& sums, int seat, std::int64_t move) const {
        const int start = move_start(move), end = move_end(move);
        B& own = p.m[static_cast<std::size_t>(seat)];
        own.flip(start);
        own.flip(end);
        sums[static_cast<std::size_t>(2 * seat)] += cost(seat, end) - cost(seat, start);
        sums[static_cast<std::size_t>(2 * seat + 1)] += rows(seat, end) - rows(seat, start);
    }

    std::int64_t value(int seat, const Sums& sums) const {
        return value(seat, sums[static_cast<std::size_t>(2 * seat)],
                     sums[static_cast<std::size_t>(2 * seat + 1)]);
    }
    // Evaluation::value with its group term read from ``group_`` (a division costs more
    // than the rest of a leaf).
    std::int64_t value(int seat, std::int64_t cost, std::int64_t rows) const {
        const std::vector<std::int64_t>& group = group_[static_cast<std::size_t>(seat)];
        if (rows >= 0 && rows < static_cast<std::int64_t>(group.size()))
            return cost - group[static_cast<std::size_t>(rows)];
        return e_.value(seat, cost, rows);
    }

    // What ``seat``'s way to go counts in the two-player evaluation (percent).
    std::int64_t weight_of(int seat) const { return seat == s_.me ? 100 : s_.rival_weight; }

    std::int64_t best_after(int seat, const Sums& sums,
                            const std::vector<std::int64_t>& moves) const {
        const std::int64_t c = sums[static_cast<std::size_t>(2 * seat)];
        const std::int64_t r = sums[static_cast<std::size_t>(2 * seat + 1)];
        std::int64_t best = WIN;
        for (std::int64_t move : moves)
            best = std::min(best, value(seat, c - move_gain(move),
                                           r - rows(seat, move_start(move)) +
                                               rows(seat, move_end(move))));
        return best;
    }

    bool finishes(const Pos& p, int seat, std::int64_t move) const {
        if (!t_.goal(seat).test(move_end(move))) return false;
        return t_.finished(p.m.data(), seat, s_.owner_counts[static_cast<std::size_t>(seat)]);
    }

    std::int64_t finish_value(const Pos& p, int seat, int ply) const {
        if (last_reply_ && seat == 0 && s_.rivals.size() == 1) {
            const int other = 1;
            for (std::int64_t reply : targets(p, other)) {
                Pos after = p;
                after.m[other].flip(move_start(reply));
                after.m[other].flip(move_end(reply));
                if (finishes(after, other, reply)) return 0;
            }
        }
        return WIN - ply;
    }

    std::int64_t frontier(const Pos& p, const Sums& sums, int seat,
                          const std::vector<std::int64_t>& moves, int ply, std::int64_t others,
                          std::int64_t weight = 1) const {
        const B& goal = t_.goal(seat);
        for (std::int64_t move : moves) {
            if (goal.test(move_end(move))) {
                Pos after = p;
                after.m[static_cast<std::size_t>(seat)].flip(move_start(move));
                after.m[static_cast<std::size_t>(seat)].flip(move_end(move));
                if (finishes(after, seat, move)) return finish_value(after, seat, ply);
            }
        }
        return others - weight * best_after(seat, sums, moves);
    }

    // Ranks the scored moves (stable, best first): the next iteration's order.
    static std::vector<std::int64_t> ranked(std::vector<std::pair<std::int64_t, std::int64_t>> scored) {
        std::stable_sort(scored.begin(), scored.end(),
                         [](const auto& a, const auto& b) { return a.first > b.first; });
        std::vector<std::int64_t> order;
        order.reserve(scored.size());
        for (const auto& vm : scored) order.push_back(vm.second);
        return order;
    }

    // Alpha-beta's root: every option, later ones only proved no better than the best
    // (whose value goes to ``score``). An option searched to the end that beats the
    // first goes to ``better_``.
    std::vector<std::int64_t> root(const Pos& p, const Sums& sums,
                                   const std::vector<std::int64_t>& order, int depth,
                                   std::int64_t& score) {
        const int me = s_.me;
        std::vector<std::pair<std::int64_t, std::int64_t>> scored;
        std::int64_t alpha = -WIN - 1;
        for (std::int64_t move : order) {
            Pos after = p;
            Sums after_sums = sums;
            play(after, after_sums, me, move);
            const std::int64_t v =
                finishes(after, me, move)
                    ? finish_value(after, me, 0)
                    : search(after, after_sums, s_.rivals[0], depth - 1, alpha, WIN + 1,
                             !scored.empty(), 1);
            if (v > alpha && !scored.empty()) {
                better_ = move;
                better_score_ = v;
            }
            scored.emplace_back(v, move);
            alpha = std::max(alpha, v);
        }
        score = alpha;
        return ranked(std::move(scored));
    }

    // A move's value to its mover, ``p`` the position after it and ``turn`` to move there,
    // in the mover's window (alpha, beta): with ``scout``, a null window first, and the
    // full window only if the move beats alpha.
    std::int64_t search(const Pos& p, const Sums& sums, int turn, int depth, std::int64_t alpha,
                        std::int64_t beta, bool scout, int ply) {
        if (scout && beta - alpha > 1) {
            const std::int64_t v = -negamax(p, sums, turn, depth, -alpha - 1, -alpha, ply);
            if (v <= alpha || v >= beta) return v;
        }
        return -negamax(p, sums, turn, depth, -beta, -alpha, ply);
    }

    // Alpha-beta's principal line: the chosen move, then in turn each position's best move
    // in the table, as many plies as the move's iteration searched; it ends early at a
    // finish, a pass, or a position the table does not hold.
    std::vector<std::int64_t> principal_line(Pos p, std::int64_t move, int depth) const {
        std::vector<std::int64_t> line;
        int turn = s_.me;
        while (static_cast<int>(line.size()) < depth && move != 0 &&
               of(p, turn).test(move_start(move)) && !occupied(p).test(move_end(move))) {
            line.push_back(move);
            B& own = p.m[static_cast<std::size_t>(turn)];
            own.flip(move_start(move));
            own.flip(move_end(move));
            if (finishes(p, turn, move)) break;
            turn = turn != s_.me ? s_.me : s_.rivals[0];
            const Entry* known = tt_.find(p, turn, hash_of(p, turn, seats_));
            move = known != nullptr ? known->best : 0;
        }
        return line;
    }

    // -- two players: negamax alpha-beta ----------------------------------------------
    std::int64_t negamax(const Pos& p, const Sums& sums, int turn, int depth, std::int64_t alpha,
                         std::int64_t beta, int ply) {
        tick();
        const int other = turn != s_.me ? s_.me : s_.rivals[0];
        const std::int64_t weight = weight_of(turn), other_weight = weight_of(other);
        if (depth == 0) return other_weight * value(other, sums) - weight * value(turn, sums);
        const std::uint64_t hash = hash_of(p, turn, seats_);
        std::int64_t first = 0;
        std::uint32_t list = NO_LIST;
        if (const Entry* known = tt_.find(p, turn, hash)) {
            const Entry& k = *known;
            first = k.best;
            list = k.list;
            if (k.depth >= depth) {
                if (k.flag == EXACT) return k.value;
                if (k.flag == LOWER)
                    alpha = std::max(alpha, k.value);
                else
                    beta = std::min(beta, k.value);
                if (alpha >= beta) return k.value;
            }
        }
        std::vector<std::int64_t>& moves = moves_[static_cast<std::size_t>(ply)];
        const bool listed = list != NO_LIST;
        ordered(p, turn, list, first, moves);
        // A horizon node keeps its list too, in an entry that holds nothing else (depth 0):
        // the next iteration searches it deeper.
        if (depth == 1 && !listed) tt_.put(p, turn, hash, Entry{0, 0, 0, EXACT, list});
        if (moves.empty()) return -negamax(p, sums, other, depth - 1, -beta, -alpha, ply + 1);
        if (depth == 1)
            return frontier(p, sums, turn, moves, ply, other_weight * value(other, sums), weight);
        const std::int64_t start_alpha = alpha;
        std::int64_t best = -WIN - 1, best_move = 0;
        bool scout = false;  // the first move with the full window, the others scouted
        for (std::int64_t move : moves) {
            Pos after = p;
            Sums after_sums = sums;
            play(after, after_sums, turn, move);
            const std::int64_t v =
                finishes(after, turn, move)
                    ? finish_value(after, turn, ply)
                    : search(after, after_sums, other, depth - 1, alpha, beta, scout, ply + 1);
            scout = true;
            if (v > best) {
                best = v;
                best_move = move;
                if (v > alpha) {
                    alpha = v;
                    if (alpha >= beta) break;
                }
            }
        }
        const Flag flag = best <= start_alpha ? UPPER : best >= beta ? LOWER : EXACT;
        tt_.put(p, turn, hash, Entry{best, best_move, static_cast<std::int16_t>(depth), flag, list});
        return best;
    }

    // -- forecast: our moves, the rival racing between them ----------------------------------
    struct Planned {  // a beam position (its plan is found back through the trail), a forecast
        Pos pos;
        Sums sums;
    };

    // Plays the rival's foreseen move on ``p`` and returns it: its one racing move; 0 (it
    // stays) where it has several (Medium plays one at random: a guess misleads the plan
    // more than a rival left standing, docs/measurements.md) or none.
    std::int64_t rival_moves(Pos& p, Sums& sums) {
        const int rival = s_.rivals.front();
        const std::vector<std::int64_t> racing = racing_moves(p, rival);
        if (racing.size() != 1) return 0;
        play(p, sums, rival, racing.front());
        return racing.front();
    }

    // The first move of the beam's plan; ``line``: the plan with the rival's foreseen move
    // (0: it stays) before each of our moves after the first.
    std::int64_t forecast(const Pos& p, const Sums& sums, const std::vector<std::int64_t>& order,
                          int& depth_reached, std::vector<std::int64_t>& line) {
        std::vector<std::int64_t> plan;
        beam(p, sums, order, depth_reached, plan);
        Pos board = p;
        Sums board_sums = sums;
        for (const std::int64_t move : plan) {
            if (!line.empty()) line.push_back(rival_moves(board, board_sums));
            line.push_back(move);
            play(board, board_sums, s_.me, move);
        }
        return line.front();
    }

    // ``seat``'s moves that gain it the most rows, in the order of ``targets`` (a racing
    // player's choice); only these few are sorted. Once a move gains, a marble's ends that
    // gain less are passed over (the holes as near the goal as they must be, one mask).
    std::vector<std::int64_t> racing_moves(const Pos& p, int seat) const {
        std::vector<std::int64_t> racing;
        std::int64_t most = -WIN;
        const std::int64_t* c = costs(seat);
        const Within& near = near_tip_[static_cast<std::size_t>(seat)];
        const auto wanted = [&](int start) -> B { return near.at_most(rows(seat, start) - most); };
        t_.each_marble(of(p, seat), occupied(p), seat, reach_, wanted, [&](int start, const B& ends) {
            ends.each([&](int end) {
                const std::int64_t gain = rows(seat, start) - rows(seat, end);
                if (gain > most) {
                    most = gain;
                    racing.clear();
                }
                if (gain == most) racing.push_back(packed(c, start, end));
            });
        });
        std::sort(racing.begin(), racing.end(), std::greater<>());
        return racing;
    }

    // The board after the rivals' forecast moves (found once per board; read it before the
    // next call, which may move it).
    const Planned& forecast_board(const Pos& entry, const Sums& entry_sums) {
        const auto index = static_cast<std::uint32_t>(forecasts_.size());
        const std::uint32_t at = forecast_seen_.insert(
            hash_of(entry, 0, seats_), index,
            [&](std::uint32_t i) { return forecasts_[i].first == entry; });
        if (at == index) {
            Planned after{entry, entry_sums};
            tick();
            rival_moves(after.pos, after.sums);
            forecasts_.emplace_back(entry, after);
        }
        return forecasts_[at].second;
    }

    // -- the beam: our moves, planned breadth-first ------------------------------------------
    // 16 bytes: a ply lists hundreds of thousands, passed over a few times.
    struct Child {
        std::int64_t value;
        // At the root the move's place in the caller's order; below, the parent's index.
        std::uint32_t rank;
        std::uint16_t start, end;
    };
    // A child's move packed (``costs``: ours), as each_packed packs it.
    static std::int64_t move_of(const std::int64_t* costs, const Child& c) {
        return packed(costs, c.start, c.end);
    }
    // Ties go to the earlier parent, then to the move a sorted list gives first: at the
    // root the caller's order, below the bigger packed move (by gain), so a ply's move
    // lists need no sort.
    static bool before(const std::int64_t* costs, const Child& a, const Child& b) {
        if (a.value != b.value) return a.value < b.value;
        if (a.rank != b.rank) return a.rank < b.rank;
        return move_of(costs, a) > move_of(costs, b);
    }

    // Puts the ``count`` best of [first, last) at its front, in order (Child's). A counting
    // pass over the values in buckets finds a bound under which at least ``count`` lie, one
    // partition moves those to the front, and only they are selected among and sorted: a
    // wide beam's children are many, and transpositions can leave the first best short, so
    // this runs a few times a ply.
    using Children = typename std::vector<Child>::iterator;
    static void sort_best(const std::int64_t* costs, Children first, Children last,
                          std::size_t count) {
        const auto [low_it, high_it] = std::minmax_element(
            first, last, [](const Child& a, const Child& b) { return a.value < b.value; });
        const std::int64_t low = low_it->value;
        const std::uint64_t span = static_cast<std::uint64_t>(high_it->value - low);
        constexpr int BUCKET_BITS = 10;
        int shift = 0;
        while ((span >> shift) >= (std::uint64_t{1} << BUCKET_BITS)) ++shift;
        std::array<std::size_t, (std::size_t{1} << BUCKET_BITS)> counts{};
        for (auto c = first; c != last; ++c)
            ++counts[static_cast<std::uint64_t>(c->value - low) >> shift];
        std::size_t total = 0, bucket = 0;
        while ((total += counts[bucket]) < count) ++bucket;
        const std::uint64_t bound = ((std::uint64_t{bucket} + 1) << shift) - 1;
        const auto pool = std::partition(first, last, [&](const Child& c) {
            return static_cast<std::uint64_t>(c.value - low) <= bound;
        });
        const auto best_end = first + static_cast<std::ptrdiff_t>(count);
        const auto order = [costs](const Child& a, const Child& b) { return before(costs, a, b); };
        std::nth_element(first, best_end, pool, order);
        std::sort(first, best_end, order);
    }

    // Positions listed once each (a beam ply's, the forecast's boards): open addressing on
    // their hashes, at most half full (it grows), the positions themselves in the caller's
    // list (no allocation per position).
    class Seen {
    public:
        // Empty, for ``most`` positions before it grows.
        void reset(std::size_t most) {
            std::size_t size = 16;
            while (size < 2 * most) size *= 2;
            slots_.assign(size, Slot{0, 0});
            mask_ = size - 1;
            count_ = 0;
        }
        // Where the position ``hash`` is listed (``same(i)``: whether it is the one listed
        // at ``i``); a new one is remembered as listed at ``index``, which is returned.
        template <class Same>
        std::uint32_t insert(std::uint64_t hash, std::uint32_t index, Same&& same) {
            std::size_t i = hash & mask_;
            for (; slots_[i].hash != 0; i = (i + 1) & mask_)
                if (slots_[i].hash == hash && same(slots_[i].index)) return slots_[i].index;
            slots_[i] = Slot{hash, index};
            if (2 * ++count_ > slots_.size()) grow();
            return index;
        }

    private:
        struct Slot {
            std::uint64_t hash;  // never 0 (hash_of): 0 is an empty slot
            std::uint32_t index;
        };
        void grow() {
            std::vector<Slot> old(2 * slots_.size(), Slot{0, 0});
            old.swap(slots_);
            mask_ = slots_.size() - 1;
            for (const Slot& slot : old) {
                if (slot.hash == 0) continue;
                std::size_t i = slot.hash & mask_;
                while (slots_[i].hash != 0) i = (i + 1) & mask_;
                slots_[i] = slot;
            }
        }
        std::vector<Slot> slots_;
        std::size_t mask_ = 0, count_ = 0;
    };

    // The plan of ``layers[depth - 1][index]``: its moves from the root on, found back
    // through each ply's (parent, move).
    using Trail = std::vector<std::vector<std::pair<std::uint32_t, std::int64_t>>>;
    static std::vector<std::int64_t> plan_of(const Trail& layers, int depth, std::uint32_t index) {
        std::vector<std::int64_t> plan(static_cast<std::size_t>(depth));
        for (int ply = depth - 1; ply >= 0; --ply) {
            const auto& [parent, move] = layers[static_cast<std::size_t>(ply)][index];
            plan[static_cast<std::size_t>(ply)] = move;
            index = parent;
        }
        return plan;
    }

    // The first move of the best plan (and the plan, into ``line``).
    std::int64_t beam(const Pos& p, const Sums& sums, const std::vector<std::int64_t>& order,
                      int& depth_reached, std::vector<std::int64_t>& line) {
        const int me = s_.me;
        const std::size_t width = static_cast<std::size_t>(s_.beam_width);
        std::vector<Planned> layer{Planned{p, sums}}, kept;
        std::vector<Child> children;
        Seen seen;
        Trail trail;  // per ply, each kept position's parent in the ply before and move
        line = {order.front()};  // the best plan so far; its first move is the choice
        for (int ply = 0; ply < s_.beam_depth; ++ply) {
            children.clear();
            try {
                for (std::size_t parent = 0; parent < layer.size(); ++parent) {
                    Planned& from = layer[parent];
                    bool finished = false;  // a plan that finishes wins at once
                    const auto grow = [&](std::int64_t move, std::uint32_t root_order) {
                        if (finished) return;
                        const int start = move_start(move), end = move_end(move);
                        if (t_.goal(me).test(end)) {  // the board after it, only to see a finish
                            Pos after = from.pos;
                            after.m[static_cast<std::size_t>(me)].flip(start);
                            after.m[static_cast<std::size_t>(me)].flip(end);
                            if (finishes(after, me, move)) {
                                finished = true;
                                line = plan_of(trail, ply, static_cast<std::uint32_t>(parent));
                                line.push_back(move);
                                return;
                            }
                        }
                        // Its value from the sums alone (play's changes to them).
                        const std::int64_t after_cost = from.sums[static_cast<std::size_t>(2 * me)] +
                                                        cost(me, end) - cost(me, start);
                        const std::int64_t after_rows = from.sums[static_cast<std::size_t>(2 * me + 1)] +
                                                        rows(me, end) - rows(me, start);
                        children.push_back(Child{value(me, after_cost, after_rows),
                                                 ply == 0 ? root_order
                                                          : static_cast<std::uint32_t>(parent),
                                                 static_cast<std::uint16_t>(start),
                                                 static_cast<std::uint16_t>(end)});
                    };
                    if (ply == 0) {
                        for (std::size_t i = 0; i < order.size(); ++i)
                            grow(order[i], static_cast<std::uint32_t>(i));
                    } else {
                        tick();
                        if (s_.search == Search::forecast) {
                            const Planned& board = forecast_board(from.pos, from.sums);
                            from.pos = board.pos;
                            from.sums = board.sums;
                        }
                        each_packed(from.pos, me, [&](std::int64_t move) { grow(move, 0); });
                    }
                    if (finished) return line.front();
                }
            } catch (const OutOfTime&) {
                return line.front();
            }
            // The best first, sorted only as far as the width needs, twice it at a time
            // (positions reached twice are dropped).
            kept.clear();
            seen.reset(std::min(children.size(), width));
            auto& came = trail.emplace_back();
            for (std::size_t i = 0, sorted = 0; i < children.size() && kept.size() < width; ++i) {
                if (i == sorted) {
                    const std::size_t count = std::min(children.size() - i, 2 * width);
                    sort_best(costs(me), children.begin() + static_cast<std::ptrdiff_t>(i),
                              children.end(), count);
                    sorted = i + count;
                }
                const Child& c = children[i];
                const std::uint32_t parent = ply == 0 ? 0 : c.rank;
                // At the root the caller's key, however it packed the gain.
                const std::int64_t move = ply == 0 ? order[c.rank] : move_of(costs(me), c);
                const Planned& from = layer[parent];
                Planned next{from.pos, from.sums};
                play(next.pos, next.sums, me, move);
                const auto index = static_cast<std::uint32_t>(kept.size());
                if (seen.insert(hash_of(next.pos, 0, seats_), index,
                                [&](std::uint32_t i) { return kept[i].pos == next.pos; }) == index) {
                    kept.push_back(next);
                    came.emplace_back(parent, move);
                }
            }
            if (kept.empty()) return line.front();
            layer.swap(kept);
            depth_reached = ply + 1;
            line = plan_of(trail, depth_reached, 0);
        }
        return line.front();
    }

    // -- playouts: three or more, the rivals racing -------------------------------------------
    struct Playout {  // one playout's random numbers: splitmix64
        std::uint64_t state;
        std::int64_t choice(const std::vector<std::int64_t>& moves) {
            if (moves.size() == 1) return moves.front();
            state += 0x9E3779B97F4A7C15ULL;
            std::uint64_t z = state;
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
            z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
            return moves[static_cast<std::size_t>((z ^ (z >> 31)) % moves.size())];
        }
    };

    std::int64_t playouts(const Pos& p, const Sums& sums, const std::vector<std::int64_t>& order,
                          int& rounds) {
        const std::size_t n =
            std::min(order.size(), static_cast<std::size_t>(s_.playout_options));
        const std::vector<std::int64_t> candidates(order.begin(),
                                                   order.begin() + static_cast<std::ptrdiff_t>(n));
        for (std::int64_t move : candidates) {
            Pos after = p;
            Sums after_sums = sums;
            play(after, after_sums, s_.me, move);
            if (finishes(after, s_.me, move)) return move;
        }
        std::vector<std::int64_t> totals(n, 0), scores(n, 0);
        try {
            for (;;) {
                for (std::size_t i = 0; i < n; ++i)
                    scores[i] = playout(p, sums, candidates[i], rounds);
                for (std::size_t i = 0; i < n; ++i) totals[i] += scores[i];
                ++rounds;
            }
        } catch (const OutOfTime&) {
        }
        return candidates[static_cast<std::size_t>(
            std::max_element(totals.begin(), totals.end()) - totals.begin())];
    }

    std::int64_t playout(Pos p, Sums sums, std::int64_t move, int number) {
        Playout rng{static_cast<std::uint64_t>(number)};
        play(p, sums, s_.me, move);
        std::array<bool, MAX_SEATS> finished{};
        std::vector<std::int64_t> ties;
        for (int ply = 1; ply <= s_.playout_moves; ++ply) {
            for (int seat : after_us_) {
                if (finished[static_cast<std::size_t>(seat)]) continue;
                tick();
                const std::vector<std::int64_t> racing = racing_moves(p, seat);
                if (racing.empty()) continue;
                const std::int64_t theirs = rng.choice(racing);
                play(p, sums, seat, theirs);
                if (finishes(p, seat, theirs)) finished[static_cast<std::size_t>(seat)] = true;
            }
            tick();
            const std::vector<std::int64_t> moves = targets(p, s_.me);
            if (moves.empty()) continue;
            ties.clear();
            for (std::int64_t m : moves) {
                if ((m >> 18) != (moves.front() >> 18)) break;
                ties.push_back(m);
            }
            const std::int64_t ours = rng.choice(ties);
            play(p, sums, s_.me, ours);
            if (finishes(p, s_.me, ours)) return WIN - ply;
        }
        std::int64_t nearest = 0;
        for (std::size_t i = 0; i < s_.opponents.size(); ++i) {
            const std::int64_t v = value(s_.opponents[i], sums);
            nearest = i == 0 ? v : std::min(nearest, v);
        }
        return s_.rival_weight * nearest - 100 * value(s_.me, sums);
    }

    const RaceTables<W>& t_;
    const Evaluation& e_;
    bool last_reply_;
    SearchSettings s_;
    int seats_;
    std::vector<int> after_us_;  // the rivals in the order they move after us
    std::uint64_t used_ = 0;
    Clock::time_point stop_{};
    Table tt_;
    std::vector<std::int64_t> listed_;  // alpha-beta's move lists: a length, then its moves
    std::vector<std::vector<std::int64_t>> moves_;  // alpha-beta's moves at each ply
    mutable Reach<W> reach_;  // the move generator's chains, kept between move lists
    // A seat's holes by a measure of each (its costs for ordered's filter, its rows to go
    // for the racing moves'): the measures in order, holes[n] the n lowest, and first[b]
    // how many measure at most low + b * 2^shift (at most 4,096 buckets; with the default
    // weights one per value).
    struct Within {
        std::vector<std::int64_t> measures;
        std::vector<B> holes;
        std::int64_t low = 0;
        int shift = 0;
        std::vector<std::size_t> first;

        // ``measure[h]``: hole h's cost or rows to go.
        static Within of(const std::vector<std::int64_t>& measure) {
            std::vector<std::pair<std::int64_t, int>> by_measure;
            for (std::size_t h = 0; h < measure.size(); ++h)
                by_measure.emplace_back(measure[h], static_cast<int>(h));
            std::sort(by_measure.begin(), by_measure.end());
            Within w;
            w.holes.emplace_back();
            for (const auto& [m, h] : by_measure) {
                w.measures.push_back(m);
                w.holes.push_back(w.holes.back());
                w.holes.back().set(h);
            }
            w.low = w.measures.front();
            const std::int64_t range = w.measures.back() - w.low;
            while ((range >> w.shift) >= 4096) ++w.shift;
            for (std::int64_t b = 0; b <= range >> w.shift; ++b)
                w.first.push_back(static_cast<std::size_t>(
                    std::upper_bound(w.measures.begin(), w.measures.end(), w.low + (b << w.shift)) -
                    w.measures.begin()));
            return w;
        }

        // The holes measuring at most ``most``.
        const B& at_most(std::int64_t most) const {
            if (most < low) return holes.front();
            const auto bucket = static_cast<std::size_t>((most - low) >> shift);
            if (bucket >= first.size()) return holes.back();
            std::size_t n = first[bucket];
            while (n < measures.size() && measures[n] <= most) ++n;
            return holes[n];
        }
    };
    std::vector<Within> within_;    // per seat, by cost
    std::vector<Within> near_tip_;  // per seat, by rows to go (the searches where rivals race)
    std::vector<std::vector<std::int64_t>> group_;  // per seat and rows to go: the group term
    std::vector<std::pair<Pos, Planned>> forecasts_;  // boards before and after the rival's move
    Seen forecast_seen_;                               // and where each is listed
};

}  // namespace sternhalma
