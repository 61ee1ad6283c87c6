// The configurations a family's plan may run (spxSpMM_search times them) and the one it runs:
// the rule's choice first, duplicates dropped, an SPX_<FAMILY>_FORCE_CANDIDATE-style switch
// honoured. One helper instead of each family keeping its own list, index and range checks.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "families/switches.hpp"
#include "runtime/error.hpp"

namespace spx::dispatch {

template <class Config>
class CandidateSet {
 public:
  /// `family` names the family in error messages ("ELL", "NM", ...).
  explicit CandidateSet(const char* family) : family_(family) {}

  /// Appends `c` unless an equal configuration is already there; returns whether it was added.
  bool add(const Config& c) {
    if (std::find(items_.begin(), items_.end(), c) != items_.end()) return false;
    items_.push_back(c);
    return true;
  }

  int count() const { return static_cast<int>(items_.size()); }
  bool empty() const { return items_.empty(); }
  int selected() const { return selected_; }
  const Config& chosen() const { return items_[static_cast<size_t>(selected_)]; }
  const Config& at(int i) const { return items_.at(static_cast<size_t>(i)); }
  std::vector<Config>& items() { return items_; }
  const std::vector<Config>& items() const { return items_; }

  /// Runs candidate `i` from now on (INTERNAL_ERROR when out of range: callers pass a count()).
  void select(int i) {
    SPX_EXPECTS(i >= 0 && i < count(), SPX_STATUS_INTERNAL_ERROR, "%s candidate %d out of range",
                family_, i);
    selected_ = i;
  }

  /// Selects the candidate the switch `name` forces, if it is set to an index in range.
  void apply_forced(const Switches& switches, const char* name) {
    if (const int64_t i = switches.index(name, count()); i >= 0) selected_ = static_cast<int>(i);
  }

 private:
  const char* family_;
  std::vector<Config> items_;
  int selected_ = 0;
};

}  // namespace spx::dispatch
