# Reference numbers for partial areas under the ROC curve and ci.se/ci.sp, from R's pROC.
#
# Run from the repository root:  Rscript tests/reference/partial_auc.R
# Writes tests/reference/partial_auc.json (the data sets and pROC's numbers);
# tests/test_partial_areas.py and tests/test_roc_bands.py read it.
#
# Data sets: ties within and across classes, bounds on and between curve
# points, a curve below the diagonal (McClish's correction undefined: NA), a
# constant score, perfect separation, a single positive.
suppressMessages(library(pROC))
library(jsonlite)

set.seed(20)
data_sets <- list(
  small_ties = list(y = c(1, 0, 1, 0, 1, 0, 0, 1, 0, 0),
                    s = c(0.9, 0.8, 0.8, 0.5, 0.5, 0.5, 0.3, 0.3, 0.2, 0.1)),
  integers = list(y = c(rep(1, 6), rep(0, 10)),
                  s = c(5, 4, 4, 3, 2, 2, 4, 3, 3, 2, 2, 1, 1, 1, 0, 0)),
  below_diagonal = list(y = c(1, 1, 1, 0, 0, 0, 0), s = c(1, 2, 3, 2, 4, 5, 6)),
  constant = list(y = c(1, 0, 1, 0, 0), s = c(1, 1, 1, 1, 1)),
  separated = list(y = c(1, 1, 0, 0, 0), s = c(5, 4, 3, 2, 1)),
  one_positive = list(y = c(0, 1, 0, 0), s = c(1, 2, 3, 4))
)
y <- rbinom(300, 1, 0.3)
data_sets$binormal <- list(y = y, s = round(rnorm(300) + 1.2 * y, 1))
y <- rbinom(80, 1, 0.4)
data_sets$ordinal <- list(y = y, s = pmin(pmax(round(rnorm(80, 2 + y, 1.2)), 0), 5))

windows <- list(c(0.8, 1), c(0.9, 1), c(0.5, 0.75), c(0, 1), c(0.3, 0.6), c(0.6, 0.62), c(0, 0.2), c(0.75, 0.8))

out <- list()
for (name in names(data_sets)) {
  d <- data_sets[[name]]
  r <- roc(d$y, d$s, levels = c(0, 1), direction = "<", quiet = TRUE)
  rows <- list()
  for (focus in c("specificity", "sensitivity")) {
    for (w in windows) {
      for (correct in c(FALSE, TRUE)) {
        value <- suppressWarnings(auc(r, partial.auc = rev(w), partial.auc.focus = focus,
                                      partial.auc.correct = correct))
        rows[[length(rows) + 1]] <- list(focus = focus, lo = w[1], hi = w[2], correct = correct,
                                         value = if (is.na(value)) NULL else as.numeric(value))
      }
    }
  }
  out[[name]] <- list(y = d$y, s = d$s, full = as.numeric(auc(r)), partial = rows)
}

# ci.se / ci.sp (stratified bootstrap percentile, 2000 replicates) on the binormal data set
d <- data_sets$binormal
r <- roc(d$y, d$s, levels = c(0, 1), direction = "<", quiet = TRUE)
set.seed(1)
se <- ci.se(r, specificities = c(0.5, 0.8, 0.9, 0.95), boot.n = 2000, progress = "none")
set.seed(1)
sp <- ci.sp(r, sensitivities = c(0.5, 0.8, 0.9, 0.95), boot.n = 2000, progress = "none")
out$ci_se <- list(at = c(0.5, 0.8, 0.9, 0.95), lower = unname(se[, 1]), median = unname(se[, 2]),
                  upper = unname(se[, 3]))
out$ci_sp <- list(at = c(0.5, 0.8, 0.9, 0.95), lower = unname(sp[, 1]), median = unname(sp[, 2]),
                  upper = unname(sp[, 3]))
# coords at fixed specificities and sensitivities (the point estimates behind ci.se / ci.sp)
out$coords_se <- unname(sapply(c(0.5, 0.8, 0.9, 0.95), function(x)
  coords(r, x, input = "specificity", ret = "sensitivity")[[1]]))
out$coords_sp <- unname(sapply(c(0.5, 0.8, 0.9, 0.95), function(x)
  coords(r, x, input = "sensitivity", ret = "specificity")[[1]]))
# coords where the curve is vertical or horizontal (several points at one specificity or sensitivity)
coords_cases <- list(small_ties = data_sets$small_ties,
                     runs = list(y = c(1, 1, 0, 0, 0, 1), s = c(5, 4, 3, 2, 1, 0)))
grid <- c(0, 1/6, 1/4, 1/3, 1/2, 0.6, 2/3, 5/6, 0.9, 1)
out$coords_edges <- lapply(coords_cases, function(d) {
  r <- roc(d$y, d$s, levels = c(0, 1), direction = "<", quiet = TRUE)
  list(y = d$y, s = d$s, at = grid,
       se = unname(sapply(grid, function(x) coords(r, x, input = "specificity", ret = "sensitivity")[[1]])),
       sp = unname(sapply(grid, function(x) coords(r, x, input = "sensitivity", ret = "specificity")[[1]])))
})
out$pROC_version <- as.character(packageVersion("pROC"))

writeLines(toJSON(out, digits = NA, auto_unbox = TRUE, null = "null", pretty = FALSE),
           "tests/reference/partial_auc.json")
