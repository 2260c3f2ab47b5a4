# Reference numbers from R's pROC (1.18) for tests/test_curve_tests.py: Venkatraman's tests of two whole ROC
# curves and the tests of sensitivity at a fixed specificity (and specificity at a fixed sensitivity).
#
# Regenerate (from the repository root; a few minutes):
#   Rscript tests/reference/proc_curve_tests.R
# It writes tests/reference/proc_curve_tests_asah.csv (pROC's aSAH data, in its row order),
# tests/reference/proc_curve_tests_sim.csv (a simulated data set with ties) and
# tests/reference/proc_curve_tests.json.
#
# What is stored, per case:
# * `E`: Venkatraman's statistic as roc.test(method = "venkatraman") reports it (deterministic);
# * `p_values`: its permutation p-values under several seeds (boot.n = 2000 each), for a Monte Carlo check;
# * unpaired cases also `E_pooled` and `p_values_pooled`: the same statistic and permutations (pROC's own
#   venkatraman.unpaired.stat / .permutation) with the mixing proportion taken as the pooled share of cases,
#   (cases_1 + cases_2) / (n_1 + n_2); roc.test divides by 2 n_1 instead (its `length(D1) + length(D1)`), which
#   is the same number only when the two samples have the same size;
# * point cases: the coordinates of each curve at `at` (coords(input = ...), deterministic), and per seed
#   roc.test's D and p-value and the bootstrap SD of the difference, sd = (c1 - c2) / D.
# Real numbers are written as strings of 17 significant digits (read them back with float()).
suppressMessages({
  library(pROC)
  library(jsonlite)
})

out_dir <- "tests/reference"
data(aSAH)
asah <- data.frame(outcome = as.character(aSAH$outcome), gender = as.character(aSAH$gender),
                   s100b = aSAH$s100b, ndka = aSAH$ndka, wfns = as.numeric(as.character(aSAH$wfns)))
write.csv(asah, file.path(out_dir, "proc_curve_tests_asah.csv"), row.names = FALSE)

# simulated: 200 rows, 80 positives and 120 negatives (so that 0.9 specificity and 0.75 sensitivity fall on
# curve points exactly), two correlated scores rounded to one decimal (ties within and across classes),
# two sites of 100 rows (40 positives each)
set.seed(20261127)
n_pos <- 80; n_neg <- 120
y <- c(rep(1, n_pos), rep(0, n_neg))
z <- rnorm(200)
a <- round(0.9 * y + z + 0.5 * rnorm(200), 1)
b <- round(0.7 * y + 0.8 * z + 0.6 * rnorm(200), 1)
site <- c(rep("north", 40), rep("south", 40), rep("north", 60), rep("south", 60))
perm <- sample(200)
sim <- data.frame(y = y[perm], a = a[perm], b = b[perm], site = site[perm])
write.csv(sim, file.path(out_dir, "proc_curve_tests_sim.csv"), row.names = FALSE)

seeds <- 1:8
boot_n <- 2000

curve <- function(response, predictor, levels) {
  roc(response, predictor, levels = levels, direction = "<", quiet = TRUE)
}

venkatraman_case <- function(name, file, outcome, levels, paired, r1, r2, extra) {
  tests <- lapply(seeds, function(s) {
    set.seed(s)
    roc.test(r1, r2, method = "venkatraman", boot.n = boot_n, paired = paired, progress = "none")
  })
  case <- c(list(name = name, file = file, outcome = outcome, positive = levels[2], test = "venkatraman",
                 paired = paired, boot_n = boot_n,
                 E = unname(tests[[1]]$statistic),
                 p_values = sapply(tests, function(t) t$p.value)), extra)
  if (!paired) {
    # pROC's own statistic and permutations at the pooled mixing proportion
    R <- rank(r1$predictor, ties.method = "first")
    S <- rank(r2$predictor, ties.method = "first")
    D1 <- r1$response; D2 <- r2$response
    mp <- (sum(D1 == r1$levels[2]) + sum(D2 == r2$levels[2])) / (length(D1) + length(D2))
    E <- pROC:::venkatraman.unpaired.stat(R, S, D1, D2, r1$levels, r2$levels, mp)
    p <- sapply(seeds, function(s) {
      set.seed(s)
      EP <- sapply(seq_len(boot_n), pROC:::venkatraman.unpaired.permutation, R = R, S = S, D1 = D1, D2 = D2,
                   levels1 = r1$levels, levels2 = r2$levels, mp = mp, ties.method = "first")
      sum(EP >= E) / boot_n
    })
    case$E_pooled <- E
    case$p_values_pooled <- p
    case$mp_pooled <- mp
  }
  case
}

point_case <- function(name, file, outcome, levels, paired, r1, r2, test, at, extra) {
  # test "sensitivity": the sensitivity at specificity `at` (pROC method = "specificity");
  # test "specificity": the specificity at sensitivity `at` (pROC method = "sensitivity")
  input <- if (test == "sensitivity") "specificity" else "sensitivity"
  c1 <- coords(r1, x = at, input = input, ret = test, transpose = FALSE)[[1]]
  c2 <- coords(r2, x = at, input = input, ret = test, transpose = FALSE)[[1]]
  tests <- lapply(seeds, function(s) {
    set.seed(s)
    if (test == "sensitivity") {
      roc.test(r1, r2, method = "specificity", specificity = at, boot.n = boot_n, paired = paired,
               progress = "none")
    } else {
      roc.test(r1, r2, method = "sensitivity", sensitivity = at, boot.n = boot_n, paired = paired,
               progress = "none")
    }
  })
  D <- sapply(tests, function(t) unname(t$statistic))
  c(list(name = name, file = file, outcome = outcome, positive = levels[2], test = test, at = at,
         paired = paired, boot_n = boot_n, estimate_a = c1, estimate_b = c2,
         D = D, p_values = sapply(tests, function(t) t$p.value), sd = (c1 - c2) / D), extra)
}

# the coordinates alone, on a grid and at every curve point (the deterministic part, cheap)
coords_case <- function(name, response, predictor, levels) {
  r <- curve(response, predictor, levels)
  grid <- sort(unique(c(seq(0.01, 0.99, by = 0.01), r$specificities, r$sensitivities)))
  grid <- grid[grid > 0 & grid < 1]
  list(name = name, at = grid,
       sensitivity = sapply(grid, function(x) coords(r, x = x, input = "specificity", ret = "sensitivity",
                                                     transpose = FALSE)[[1]]),
       specificity = sapply(grid, function(x) coords(r, x = x, input = "sensitivity", ret = "specificity",
                                                     transpose = FALSE)[[1]]))
}

lv <- c("Good", "Poor")
cases <- list()
coords_cases <- list()
for (pair in list(c("s100b", "ndka"), c("s100b", "wfns"), c("ndka", "wfns"))) {
  r1 <- curve(asah$outcome, asah[[pair[1]]], lv)
  r2 <- curve(asah$outcome, asah[[pair[2]]], lv)
  cases[[length(cases) + 1]] <- venkatraman_case(paste("asah", pair[1], pair[2], sep = "_"), "asah", "outcome",
                                                 lv, TRUE, r1, r2, list(score_a = pair[1], score_b = pair[2]))
}
r1 <- curve(asah$outcome, asah$s100b, lv)
r2 <- curve(asah$outcome, asah$ndka, lv)
cases[[length(cases) + 1]] <- point_case("asah_sens_at_spec", "asah", "outcome", lv, TRUE, r1, r2, "sensitivity",
                                         0.9, list(score_a = "s100b", score_b = "ndka"))
cases[[length(cases) + 1]] <- point_case("asah_spec_at_sens", "asah", "outcome", lv, TRUE, r1, r2, "specificity",
                                         0.8, list(score_a = "s100b", score_b = "ndka"))
for (s in c("s100b", "ndka", "wfns")) {
  coords_cases[[length(coords_cases) + 1]] <- coords_case(paste("asah", s, sep = "_"), asah$outcome, asah[[s]], lv)
}
# unpaired: one score between the two genders (levels ordered as the library sorts them: Female, Male)
fem <- asah[asah$gender == "Female", ]
mal <- asah[asah$gender == "Male", ]
for (s in c("s100b", "ndka")) {
  r1 <- curve(fem$outcome, fem[[s]], lv)
  r2 <- curve(mal$outcome, mal[[s]], lv)
  cases[[length(cases) + 1]] <- venkatraman_case(paste("asah_gender", s, sep = "_"), "asah", "outcome", lv, FALSE,
                                                 r1, r2, list(score = s, between = "gender", level_a = "Female",
                                                              level_b = "Male"))
}
r1 <- curve(fem$outcome, fem$s100b, lv)
r2 <- curve(mal$outcome, mal$s100b, lv)
cases[[length(cases) + 1]] <- point_case("asah_gender_sens_at_spec", "asah", "outcome", lv, FALSE, r1, r2,
                                         "sensitivity", 0.9, list(score = "s100b", between = "gender",
                                                                  level_a = "Female", level_b = "Male"))

lv <- c(0, 1)
r1 <- curve(sim$y, sim$a, lv)
r2 <- curve(sim$y, sim$b, lv)
cases[[length(cases) + 1]] <- venkatraman_case("sim_a_b", "sim", "y", lv, TRUE, r1, r2,
                                               list(score_a = "a", score_b = "b"))
cases[[length(cases) + 1]] <- point_case("sim_sens_at_spec", "sim", "y", lv, TRUE, r1, r2, "sensitivity", 0.9,
                                         list(score_a = "a", score_b = "b"))
cases[[length(cases) + 1]] <- point_case("sim_spec_at_sens", "sim", "y", lv, TRUE, r1, r2, "specificity", 0.75,
                                         list(score_a = "a", score_b = "b"))
for (s in c("a", "b")) {
  coords_cases[[length(coords_cases) + 1]] <- coords_case(paste("sim", s, sep = "_"), sim$y, sim[[s]], lv)
}
north <- sim[sim$site == "north", ]
south <- sim[sim$site == "south", ]
r1 <- curve(north$y, north$a, lv)
r2 <- curve(south$y, south$a, lv)
cases[[length(cases) + 1]] <- venkatraman_case("sim_site_a", "sim", "y", lv, FALSE, r1, r2,
                                               list(score = "a", between = "site", level_a = "north",
                                                    level_b = "south"))
cases[[length(cases) + 1]] <- point_case("sim_site_spec_at_sens", "sim", "y", lv, FALSE, r1, r2, "specificity",
                                         0.75, list(score = "a", between = "site", level_a = "north",
                                                    level_b = "south"))

result <- list(proc_version = as.character(packageVersion("pROC")), seeds = seeds, cases = cases,
               coords = coords_cases)
# every real number as a string of 17 significant digits: toJSON keeps 15, which does not give back the same
# double (and a coordinate read "exactly at" a curve point needs the same double)
result <- rapply(result, function(x) sprintf("%.17g", x), classes = "numeric", how = "replace")
writeLines(toJSON(result, auto_unbox = TRUE, pretty = TRUE),
           file.path(out_dir, "proc_curve_tests.json"))
