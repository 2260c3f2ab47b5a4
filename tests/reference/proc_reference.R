# Reference numbers from R's pROC for tests/test_cutoffs.py and tests/test_planning.py.
#
# Regenerate (from the repository root):
#   Rscript tests/reference/proc_reference.R > tests/reference/proc_reference.json
#
# Each cut-off case holds its data (or a file and group), the pROC call and
# pROC's answer; the power cases hold power.roc.test's arguments and answer.
suppressMessages({
  library(pROC)
  library(jsonlite)
})

ret <- c("threshold", "sensitivity", "specificity", "tp", "fp", "tn", "fn", "ppv", "npv", "youden",
         "closest.topleft")

coords_case <- function(name, y, s, x, direction = "<", best.method = "youden", best.weights = c(1, 0.5),
                        file = NULL, group = NULL) {
  r <- roc(y, s, direction = direction, levels = c(0, 1), quiet = TRUE)
  res <- coords(r, x, input = "threshold", ret = ret, best.method = best.method, best.weights = best.weights,
                transpose = FALSE)
  # JSON has no infinity: thresholds +-Inf as strings
  thr <- ifelse(is.infinite(res$threshold), ifelse(res$threshold > 0, "Inf", "-Inf"),
                sprintf("%.17g", res$threshold))
  out <- lapply(res, function(v) unname(v))
  out$threshold <- thr
  case <- list(name = name, direction = direction, x = if (is.character(x)) x else sprintf("%.17g", x),
               best_method = best.method, best_weights = best.weights, coords = out)
  if (is.null(file)) {
    case$y <- y
    case$s <- sprintf("%.17g", s)
  } else {
    case$file <- file
    case$group <- group
  }
  case
}

cases <- list()
y1 <- c(0, 0, 1, 1, 1, 0)
s1 <- c(0.1, 0.4, 0.35, 0.8, 0.4, 0.2)
cases[[length(cases) + 1]] <- coords_case("small_youden", y1, s1, "best")
cases[[length(cases) + 1]] <- coords_case("small_topleft", y1, s1, "best", best.method = "closest.topleft")
cases[[length(cases) + 1]] <- coords_case("small_all", y1, s1, "all")
cases[[length(cases) + 1]] <- coords_case("small_values", y1, s1, c(0.4, 0.35, 0.3, -5, 5, 0.8, 0.1))
cases[[length(cases) + 1]] <- coords_case("small_reverse_all", y1, s1, "all", direction = ">")
cases[[length(cases) + 1]] <- coords_case("small_reverse_best", y1, s1, "best", direction = ">")
cases[[length(cases) + 1]] <- coords_case("small_reverse_values", y1, s1, c(0.4, 0.35, 0.05, 1), direction = ">")
# two thresholds equally good by Youden's index (pROC returns both)
y2 <- c(0, 0, 1, 0, 1, 1, 0, 1)
s2 <- c(1, 2, 3, 4, 5, 6, 7, 8)
cases[[length(cases) + 1]] <- coords_case("tied_best_youden", y2, s2, "best")
cases[[length(cases) + 1]] <- coords_case("tied_best_topleft", y2, s2, "best", best.method = "closest.topleft")
# ties across classes at the best threshold
y3 <- c(0, 0, 0, 1, 0, 1, 1, 1, 0, 1)
s3 <- c(1, 2, 3, 3, 3, 4, 4, 5, 5, 6)
cases[[length(cases) + 1]] <- coords_case("cross_class_ties_youden", y3, s3, "best")
cases[[length(cases) + 1]] <- coords_case("cross_class_ties_all", y3, s3, "all")
# weights: a false negative costs twice, prevalence 0.2
cases[[length(cases) + 1]] <- coords_case("weighted_youden", y3, s3, "best", best.weights = c(2, 0.2))
cases[[length(cases) + 1]] <- coords_case("weighted_topleft", y3, s3, "best", best.method = "closest.topleft",
                                          best.weights = c(2, 0.2))
# constant score
cases[[length(cases) + 1]] <- coords_case("constant_best", c(0, 1, 0, 1, 1), rep(0.5, 5), "best")
cases[[length(cases) + 1]] <- coords_case("constant_all", c(0, 1, 0, 1, 1), rep(0.5, 5), "all")
# perfect separation
cases[[length(cases) + 1]] <- coords_case("separated_best", c(0, 0, 0, 1, 1), c(1, 2, 3, 4, 5), "best")
cases[[length(cases) + 1]] <- coords_case("separated_topleft", c(0, 0, 0, 1, 1), c(1, 2, 3, 4, 5), "best",
                                          best.method = "closest.topleft")
# one positive
cases[[length(cases) + 1]] <- coords_case("one_positive_best", c(0, 0, 1, 0, 0, 0), c(0.1, 0.7, 0.5, 0.3, 0.2, 0.9),
                                          "best")
cases[[length(cases) + 1]] <- coords_case("one_positive_all", c(0, 0, 1, 0, 0, 0), c(0.1, 0.7, 0.5, 0.3, 0.2, 0.9),
                                          "all")
# adjacent doubles (the midpoint rounds onto a score) and huge scores (the midpoint overflows)
cases[[length(cases) + 1]] <- coords_case("adjacent_doubles", c(0, 1, 0, 1), c(1, 1 + .Machine$double.eps, 0, 2), "all")
cases[[length(cases) + 1]] <- coords_case("huge_scores", c(0, 1, 0, 1), c(-1e308, 1e308, 1.5e308, 1.7e308), "all")

# a real-size data set, per site
cohort <- read.csv("data/synthetic_cohort.csv")
for (site in sort(unique(cohort$site))) {
  sub <- cohort[cohort$site == site, ]
  case <- coords_case(paste0("cohort_youden_", site), sub$disease, sub$model_a, "best", file = "data/synthetic_cohort.csv",
                      group = site)
  case$y <- NULL
  case$s <- NULL
  cases[[length(cases) + 1]] <- case
  case <- coords_case(paste0("cohort_topleft_", site), sub$disease, sub$model_a, "best",
                      best.method = "closest.topleft", file = "data/synthetic_cohort.csv", group = site)
  cases[[length(cases) + 1]] <- case
}

# power.roc.test for one ROC curve (Obuchowski's variance)
power_cases <- list()
add_power <- function(...) {
  args <- list(...)
  res <- do.call(power.roc.test, args)
  power_cases[[length(power_cases) + 1]] <<- list(args = args, ncases = res$ncases, ncontrols = res$ncontrols,
                                                 power = res$power, sig.level = res$sig.level, auc = as.numeric(res$auc))
}
for (auc in c(0.6, 0.7, 0.8, 0.9, 0.95)) {
  for (kappa in c(0.5, 1, 2, 9)) {
    add_power(auc = auc, power = 0.9, sig.level = 0.05, kappa = kappa)
  }
}
add_power(auc = 0.75, power = 0.8, sig.level = 0.01, kappa = 3, alternative = "one.sided")
add_power(auc = 0.75, power = 0.8, sig.level = 0.05, kappa = 3, alternative = "one.sided")
for (auc in c(0.55, 0.65, 0.8, 0.93)) {
  add_power(auc = auc, ncases = 30, ncontrols = 90, sig.level = 0.05)
  add_power(auc = auc, ncases = 12, ncontrols = 13, sig.level = 0.01, alternative = "one.sided")
}

cat(toJSON(list(proc_version = as.character(packageVersion("pROC")), coords = cases, power = power_cases),
           auto_unbox = TRUE, digits = I(17), pretty = TRUE))
cat("\n")
