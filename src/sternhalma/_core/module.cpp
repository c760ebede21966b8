// sternhalma._native: the Python face of the compiled core. Positions come in as
// the engine's bitboards (Python ints, one per seat), moves and bitboards go out.
// sternhalma/core.py chooses between this module and the pure-Python engine.
#include <nanobind/nanobind.h>
#include <nanobind/stl/vector.h>

#include <algorithm>

#include <memory>
#include <string>
#include <vector>

#include "capture.hpp"
#include "search.hpp"
#include "solo.hpp"

namespace nb = nanobind;
using namespace sternhalma;

namespace {

// A Python int (a bitboard) as W words; ValueError when it does not fit.
template <int W>
Bits<W> to_bits(nb::handle value, const Bits<W>& all) {
    if (!PyLong_Check(value.ptr())) throw nb::type_error("a bitboard must be an int");
    static PyObject* const word = PyLong_FromLong(64);
    Bits<W> b;
    PyObject* rest = value.ptr();
    Py_INCREF(rest);
    for (int k = 0; k < W; ++k) {
        b.w[static_cast<std::size_t>(k)] = PyLong_AsUnsignedLongLongMask(rest);
        PyObject* shifted = PyNumber_Rshift(rest, word);
        Py_DECREF(rest);
        if (shifted == nullptr) throw nb::python_error();
        rest = shifted;
    }
    const int beyond = PyObject_IsTrue(rest);
    Py_DECREF(rest);
    if (beyond != 0 || (b & ~all).any())
        throw nb::value_error("a bitboard holds holes that are not on the board");
    return b;
}

template <int W>
nb::int_ to_int(const Bits<W>& b) {
    static PyObject* const word = PyLong_FromLong(64);
    PyObject* result = PyLong_FromUnsignedLongLong(b.w[W - 1]);
    for (int k = W - 2; k >= 0 && result != nullptr; --k) {
        PyObject* shifted = PyNumber_Lshift(result, word);
        Py_DECREF(result);
        if (shifted == nullptr) throw nb::python_error();
        PyObject* low = PyLong_FromUnsignedLongLong(b.w[static_cast<std::size_t>(k)]);
        result = PyNumber_Or(shifted, low);
        Py_DECREF(shifted);
        Py_DECREF(low);
    }
    if (result == nullptr) throw nb::python_error();
    return nb::steal<nb::int_>(result);
}

// One ruleset's core, whatever the width of its bitboards.
// Whether a Python signal handler raised an exception (the thinking process gives its job up
// on SIGUSR1, server/thinking/slot.py): the search runs without the GIL, so Python's handlers
// run only when it asks, every 1,024 nodes. The exception stays set for nb::python_error.
bool signal_raised() {
    nb::gil_scoped_acquire locked;
    return PyErr_CheckSignals() != 0;
}

class Core {
public:
    virtual ~Core() = default;
    virtual nb::bytes moves(nb::sequence marbles, int seat) const = 0;
    virtual nb::tuple apply(nb::sequence marbles, int seat, int start, int end) const = 0;
    virtual bool finished(nb::sequence marbles, int seat, bool owner_counts) const = 0;
    virtual SearchResult search(const Evaluation& evaluation, nb::sequence marbles,
                                const SearchSettings& settings,
                                std::vector<std::int64_t> order) const = 0;
    virtual nb::object solo_beam(nb::int_ own, int seat, const std::vector<std::int64_t>& weights,
                                 int width, int max_moves) const = 0;
};

template <int W>
class CoreOf final : public Core {
public:
    using B = Bits<W>;

    CoreOf(int size, const std::vector<std::vector<std::vector<int>>>& rays,
           const std::vector<nb::int_>& goals, const std::vector<nb::int_>& may_end,
           bool long_jumps, bool anti_blocking, bool last_reply, std::vector<int> owners)
        : tables_(size, rays, convert(goals, size), convert(may_end, size),
                  long_jumps, std::move(owners), anti_blocking),
          last_reply_(last_reply) {}

    SearchResult search(const Evaluation& evaluation, nb::sequence marbles,
                        const SearchSettings& settings,
                        std::vector<std::int64_t> order) const override {
        const int seats = tables_.seats();
        std::vector<B> boards = position(marbles, settings.me);
        if (order.empty()) throw nb::value_error("the search needs at least one move");
        if (evaluation.costs.size() != static_cast<std::size_t>(seats) ||
            evaluation.to_go.size() != static_cast<std::size_t>(seats) ||
            evaluation.divisor.size() != static_cast<std::size_t>(seats))
            throw nb::value_error("one evaluation table per seat is needed");
        for (std::size_t s = 0; s < evaluation.costs.size(); ++s)
            if (evaluation.costs[s].size() != static_cast<std::size_t>(tables_.size()) ||
                evaluation.to_go[s].size() != static_cast<std::size_t>(tables_.size()) ||
                evaluation.divisor[s] <= 0)
                throw nb::value_error("an evaluation table does not fit the board");
        for (int r : settings.rivals)
            if (r < 0 || r >= seats || r == settings.me) throw nb::value_error("no such rival");
        for (int o : settings.opponents)
            if (std::find(settings.rivals.begin(), settings.rivals.end(), o) ==
                settings.rivals.end())
                throw nb::value_error("an opponent is one of the rivals");
        if (settings.search != Search::solo && settings.rivals.empty())
            throw nb::value_error("only the solo search runs without rivals");
        if ((settings.search == Search::alphabeta || settings.search == Search::forecast) &&
            settings.rivals.size() != 1)
            throw nb::value_error("alpha-beta and the forecast need exactly one rival");
        const std::pair<const char*, long long> counts[] = {
            {"breadth", settings.breadth},
            {"reply_breadth", settings.reply_breadth},
            {"max_depth", settings.max_depth},
            {"beam_width", settings.beam_width},
            {"beam_depth", settings.beam_depth},
            {"playout_moves", settings.playout_moves},
            {"playout_options", settings.playout_options},
            {"nodes", settings.nodes == 0 ? 0LL : 1LL}};
        for (const auto& [name, value] : counts)
            if (value < 1) throw nb::value_error((std::string(name) + " is at least 1").c_str());
        for (std::int64_t key : order)
            if (move_start(key) >= tables_.size() || move_end(key) >= tables_.size())
                throw nb::value_error("a move leaves the board");
        typename RaceSearcher<W>::Pos pos;
        for (int s = 0; s < seats; ++s) pos.m[static_cast<std::size_t>(s)] = boards[static_cast<std::size_t>(s)];
        RaceSearcher<W> searcher(tables_, evaluation, last_reply_, settings);
        nb::gil_scoped_release unlocked;
        return searcher.choose(pos, std::move(order));
    }

    nb::bytes moves(nb::sequence marbles, int seat) const override {
        std::vector<B> boards = position(marbles, seat);
        B occupied;
        for (const B& b : boards) occupied |= b;
        // The search's generator (its moves by marble), listed by start and end.
        std::vector<Move> found;
        found.reserve(256);
        Reach<W> reach;
        tables_.each_marble(
            boards[static_cast<std::size_t>(seat)], occupied, seat, reach,
            [&](int) { return tables_.all(); },
            [&](int start, const B& ends) {
                ends.each([&](int end) {
                    found.push_back(Move{static_cast<std::int16_t>(start), static_cast<std::int16_t>(end)});
                });
            });
        std::sort(found.begin(), found.end(), [](const Move& a, const Move& b) {
            return a.start != b.start ? a.start < b.start : a.end < b.end;
        });
        // Two bytes a move (boards have at most 256 holes): one object for the whole list.
        std::string pairs;
        pairs.reserve(2 * found.size());
        for (const Move& m : found) {
            pairs.push_back(static_cast<char>(m.start));
            pairs.push_back(static_cast<char>(m.end));
        }
        return nb::bytes(pairs.data(), pairs.size());
    }

    // solo.hpp's beam: (moves as (start, end) bytes, positions looked at), or None.
    nb::object solo_beam(nb::int_ own, int seat, const std::vector<std::int64_t>& weights,
                         int width, int max_moves) const override {
        if (seat < 0 || seat >= tables_.seats()) throw nb::value_error("no such seat");
        if (weights.size() != static_cast<std::size_t>(tables_.size()))
            throw nb::value_error("one weight per hole is needed");
        const B marbles = to_bits<W>(own, tables_.all());
        SoloResult r;
        {
            nb::gil_scoped_release unlocked;
            r = sternhalma::solo_beam<W>(tables_, seat, marbles, weights,
                                         static_cast<std::size_t>(std::max(width, 1)), max_moves);
        }
        if (!r.found) return nb::none();
        std::string pairs;
        for (const Move& m : r.moves) {
            pairs.push_back(static_cast<char>(m.start));
            pairs.push_back(static_cast<char>(m.end));
        }
        return nb::make_tuple(nb::bytes(pairs.data(), pairs.size()), r.positions);
    }

    bool finished(nb::sequence marbles, int seat, bool owner_counts) const override {
        const std::vector<B> boards = position(marbles, seat);
        return tables_.finished(boards.data(), seat, owner_counts);
    }

    nb::tuple apply(nb::sequence marbles, int seat, int start, int end) const override {
        std::vector<B> boards = position(marbles, seat);
        B& own = boards[static_cast<std::size_t>(seat)];
        if (start < 0 || start >= tables_.size() || end < 0 || end >= tables_.size() ||
            !own.test(start))
            throw nb::value_error("the move does not start on a marble of the seat to move");
        own.flip(start);
        own.flip(end);
        nb::list result;
        for (const B& b : boards) result.append(to_int(b));
        return nb::tuple(result);
    }

private:
    static std::vector<B> convert(const std::vector<nb::int_>& masks, int size) {
        B all;
        for (int h = 0; h < size; ++h) all.set(h);
        std::vector<B> result;
        for (const nb::int_& m : masks) result.push_back(to_bits<W>(m, all));
        return result;
    }

    std::vector<B> position(nb::sequence marbles, int seat) const {
        const std::size_t seats = nb::len(marbles);
        if (seats != static_cast<std::size_t>(tables_.seats()))
            throw nb::value_error("one bitboard per seat is needed");
        if (seat < 0 || seat >= tables_.seats()) throw nb::value_error("no such seat");
        std::vector<B> boards;
        boards.reserve(seats);
        for (nb::handle b : marbles) boards.push_back(to_bits<W>(b, tables_.all()));
        return boards;
    }

    RaceTables<W> tables_;
    bool last_reply_;
};

// ValueError unless ``rays`` has one list per hole of a ``size``-hole board, each on it
// and leaving its hole one way in the numbering (race.hpp's long jumps rely on it).
void check_rays(int size, const std::vector<std::vector<std::vector<int>>>& rays) {
    if (rays.size() != static_cast<std::size_t>(size))
        throw nb::value_error("one list of rays per hole is needed");
    for (int hole = 0; hole < size; ++hole) {
        const auto& per_hole = rays[static_cast<std::size_t>(hole)];
        if (per_hole.size() > 8) throw nb::value_error("a hole has at most 8 rays");
        for (const auto& ray : per_hole) {
            int before = hole;
            for (int h : ray) {
                if (h < 0 || h >= size) throw nb::value_error("a ray leaves the board");
                if (h == before || (h > before) != (ray[0] > hole))
                    throw nb::value_error("a ray's holes rise or fall from its hole");
                before = h;
            }
        }
    }
}

std::unique_ptr<Core> make_core(int size, const std::vector<std::vector<std::vector<int>>>& rays,
                                const std::vector<nb::int_>& goals,
                                const std::vector<nb::int_>& may_end, bool long_jumps,
                                bool anti_blocking, bool last_reply, std::vector<int> owners) {
    if (size <= 0 || size > 256) throw nb::value_error("a board has 1 to 256 holes");
    if (goals.size() != may_end.size() || goals.empty() || goals.size() > MAX_SEATS)
        throw nb::value_error("one goal and one end mask per seat are needed");
    const int seats = static_cast<int>(goals.size());
    if (owners.empty()) owners.assign(goals.size(), -1);
    if (owners.size() != goals.size())
        throw nb::value_error("one goal owner (or -1) per seat is needed");
    for (int s = 0; s < seats; ++s) {
        const int owner = owners[static_cast<std::size_t>(s)];
        if (owner < -1 || owner >= seats || owner == s)
            throw nb::value_error("a goal owner is another seat, or -1");
    }
    check_rays(size, rays);
    if (size <= 128)
        return std::make_unique<CoreOf<2>>(size, rays, goals, may_end, long_jumps,
                                           anti_blocking, last_reply, std::move(owners));
    return std::make_unique<CoreOf<4>>(size, rays, goals, may_end, long_jumps,
                                       anti_blocking, last_reply, std::move(owners));
}

// The class Python sees: one ruleset's core behind a fixed interface.
class RaceCore {
public:
    RaceCore(int size, const std::vector<std::vector<std::vector<int>>>& rays,
             const std::vector<nb::int_>& goals, const std::vector<nb::int_>& may_end,
             bool long_jumps, bool anti_blocking, bool last_reply, std::vector<int> owners)
        : core_(make_core(size, rays, goals, may_end, long_jumps, anti_blocking,
                          last_reply, std::move(owners))) {}
    // Hard's search (players/race.py) for one decision; a Python signal handler's
    // exception stops it (the thinking process gives its job up).
    SearchResult search(const Evaluation& evaluation, nb::sequence marbles,
                        SearchSettings settings, std::vector<std::int64_t> order) const {
        settings.interrupted = &signal_raised;
        try {
            return core_->search(evaluation, marbles, settings, std::move(order));
        } catch (const Interrupted&) {
            throw nb::python_error();  // the exception a Python signal handler raised
        }
    }
    nb::bytes moves(nb::sequence marbles, int seat) const { return core_->moves(marbles, seat); }
    nb::object solo_beam(nb::int_ own, int seat, std::vector<std::int64_t> weights, int width,
                         int max_moves) const {
        return core_->solo_beam(own, seat, weights, width, max_moves);
    }
    bool finished(nb::sequence marbles, int seat, bool owner_counts) const {
        return core_->finished(marbles, seat, owner_counts);
    }
    nb::tuple apply(nb::sequence marbles, int seat, int start, int end) const {
        return core_->apply(marbles, seat, start, end);
    }

private:
    std::unique_ptr<Core> core_;
};

// Capture chains on the star (capture.hpp): one per resulting position, as paths.
class CaptureCore {
public:
    CaptureCore(int size, const std::vector<std::vector<std::vector<int>>>& rays, bool long_jumps)
        : tables_(size, checked(size, rays), long_jumps) {
        for (int h = 0; h < size; ++h) all_.set(h);
    }
    std::vector<std::vector<std::int16_t>> distinct(nb::handle pieces) const {
        std::vector<std::vector<std::int16_t>> paths;
        tables_.distinct(to_bits<2>(pieces, all_),
                         [&](const std::vector<std::int16_t>& path) { paths.push_back(path); });
        return paths;
    }

private:
    static const std::vector<std::vector<std::vector<int>>>& checked(
        int size, const std::vector<std::vector<std::vector<int>>>& rays) {
        if (size < 0 || size > 128)
            throw nb::value_error("capture is played on the star: at most 128 holes");
        check_rays(size, rays);
        return rays;
    }
    CaptureTables<2> tables_;
    Bits<2> all_;
};

}  // namespace

NB_MODULE(_native, m) {
    m.doc() = "The compiled core of sternhalma: the race games and capture's chains (C++17).";
    nb::class_<Evaluation>(m, "Evaluation")
        .def("__init__",
             [](Evaluation* self, std::vector<std::vector<std::int64_t>> costs,
                std::vector<std::vector<std::int64_t>> to_go, std::vector<std::int64_t> divisor,
                std::int64_t group) {
                 new (self) Evaluation{std::move(costs), std::move(to_go), std::move(divisor),
                                       group};
             },
             nb::arg("costs"), nb::arg("to_go"), nb::arg("divisor"), nb::arg("group"));
    nb::enum_<Search>(m, "Search")
        .value("solo", Search::solo)
        .value("alphabeta", Search::alphabeta)
        .value("forecast", Search::forecast)
        .value("playout", Search::playout);
    nb::class_<SearchSettings>(m, "SearchSettings")
        .def(nb::init<>())
        .def_rw("me", &SearchSettings::me)
        .def_rw("rivals", &SearchSettings::rivals)
        .def_rw("opponents", &SearchSettings::opponents)
        .def_prop_rw(
            "owner_counts",
            [](const SearchSettings& s) {
                return std::vector<bool>(s.owner_counts.begin(), s.owner_counts.end());
            },
            [](SearchSettings& s, const std::vector<bool>& counts) {
                if (counts.size() > static_cast<std::size_t>(MAX_SEATS))
                    throw nb::value_error("owner_counts has one flag per seat");
                s.owner_counts.fill(true);
                std::copy(counts.begin(), counts.end(), s.owner_counts.begin());
            })
        .def_rw("search", &SearchSettings::search)
        .def_rw("breadth", &SearchSettings::breadth)
        .def_rw("reply_breadth", &SearchSettings::reply_breadth)
        .def_rw("max_depth", &SearchSettings::max_depth)
        .def_rw("rival_weight", &SearchSettings::rival_weight)
        .def_rw("beam_width", &SearchSettings::beam_width)
        .def_rw("beam_depth", &SearchSettings::beam_depth)
        .def_rw("playout_moves", &SearchSettings::playout_moves)
        .def_rw("playout_options", &SearchSettings::playout_options)
        .def_rw("nodes", &SearchSettings::nodes)
        .def_rw("seconds", &SearchSettings::seconds);
    nb::class_<SearchResult>(m, "SearchResult")
        .def_ro("best", &SearchResult::best)
        .def_ro("depth", &SearchResult::depth)
        .def_ro("used", &SearchResult::used)
        .def_ro("score", &SearchResult::score)
        .def_ro("line", &SearchResult::line);
    nb::class_<RaceCore>(m, "RaceCore")
        .def(nb::init<int, std::vector<std::vector<std::vector<int>>>, const std::vector<nb::int_>&,
                      const std::vector<nb::int_>&, bool, bool, bool, std::vector<int>>(),
             nb::arg("size"), nb::arg("rays"), nb::arg("goals"), nb::arg("may_end"),
             nb::arg("long_jumps"), nb::arg("anti_blocking"),
             nb::arg("last_reply"), nb::arg("owners") = std::vector<int>{})
        .def("search", &RaceCore::search, nb::arg("evaluation"), nb::arg("marbles"),
             nb::arg("settings"), nb::arg("order"))
        .def("moves", &RaceCore::moves, nb::arg("marbles"), nb::arg("seat"))
        .def("solo_beam", &RaceCore::solo_beam, nb::arg("own"), nb::arg("seat"),
             nb::arg("weights"), nb::arg("width"), nb::arg("max_moves"))
        .def("finished", &RaceCore::finished, nb::arg("marbles"), nb::arg("seat"),
             nb::arg("owner_counts"))
        .def("apply", &RaceCore::apply, nb::arg("marbles"), nb::arg("seat"), nb::arg("start"),
             nb::arg("end"));
    nb::class_<CaptureCore>(m, "CaptureCore")
        .def(nb::init<int, const std::vector<std::vector<std::vector<int>>>&, bool>(),
             nb::arg("size"), nb::arg("rays"), nb::arg("long_jumps"))
        .def("distinct", &CaptureCore::distinct, nb::arg("pieces"));
}
