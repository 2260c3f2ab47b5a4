# Reference numbers from R for calibration statistics: rms::val.prob, calibration-in-the-large and
# logistic recalibration (glm, Wald and profile-likelihood CIs), Spiegelhalter's z, Brier, O/E,
# restricted cubic spline calibration curves (Hmisc knots), loess ICI (Austin & Steyerberg 2019),
# weighted fits, sandwich / cluster-robust covariances and per-site recalibration.
#
# Regenerate (from the repository root):
#   Rscript tests/reference/calibration_reference.R
# It writes tests/reference/calibration_data.csv (simulated data, set.seed(20261126)) and
# tests/reference/calibration_reference.json. Numbers in the JSON are printed with 17 significant
# digits ("%.17g"); NA is written as null, and Inf, -Inf, NaN as the strings "Inf", "-Inf", "NaN".
#
# Produced with R 4.2.2 Patched (2022-11-10 r83330), rms 6.5-0, Hmisc 4.8-0, sandwich 3.0-2,
# MASS 7.3-58.2 (profile CIs via confint), from Debian 12 packages r-base-core, r-cran-rms,
# r-cran-hmisc, r-cran-sandwich, r-cran-jsonlite (jsonlite is used only to quote strings).
#
# Inputs:
#   data/breast_cancer_oof.csv: malignant (0/1) with out-of-fold probabilities logistic and forest.
#     Both score columns contain probabilities of exactly 0 or 1, so each has a case on all rows
#     (only the statistics that stay finite) and a case "<score>/open_subset" on the rows with 0 < p < 1.
#   tests/reference/calibration_data.csv: 600 simulated rows, 6 sites, true risk
#     plogis(-1.5 + 0.8 x + site effect (sd 0.4)), predicted p = plogis(-1.2 + 1.1 x),
#     p_tied = p rounded to 2 decimals and clipped to [0.01, 0.99], w = runif(0.5, 3) rounded to 3 decimals.
suppressMessages({
  library(rms)
  library(Hmisc)
  library(MASS)
})
have_sandwich <- requireNamespace("sandwich", quietly = TRUE)

out_dir <- file.path("tests", "reference")
csv_path <- file.path(out_dir, "calibration_data.csv")
json_path <- file.path(out_dir, "calibration_reference.json")

# ---------------------------------------------------------------- JSON writer (17 significant digits)
json_str <- function(s) as.character(jsonlite::toJSON(s, auto_unbox = TRUE))
json_num <- function(v) {
  ifelse(is.finite(v), sprintf("%.17g", v),
         ifelse(is.na(v) & !is.nan(v), "null", paste0('"', format(v), '"')))
}
to_json <- function(x, indent = 0) {
  pad <- strrep("  ", indent + 1)
  pad0 <- strrep("  ", indent)
  if (is.null(x)) return("null")
  if (is.matrix(x)) {
    x <- list(rownames = as.list(rownames(x)), colnames = as.list(colnames(x)),
              values = lapply(seq_len(nrow(x)), function(i) as.list(unname(x[i, ]))))
    return(to_json(x, indent))
  }
  if (is.list(x)) {
    if (length(x) == 0) return(if (is.null(names(x))) "[]" else "{}")
    items <- vapply(seq_along(x), function(i) to_json(x[[i]], indent + 1), "")
    if (is.null(names(x))) {
      return(paste0("[\n", paste0(pad, items, collapse = ",\n"), "\n", pad0, "]"))
    }
    return(paste0("{\n", paste0(pad, vapply(names(x), json_str, ""), ": ", items, collapse = ",\n"),
                  "\n", pad0, "}"))
  }
  if (is.character(x) || is.factor(x)) {
    v <- vapply(as.character(x), json_str, "")
  } else if (is.logical(x)) {
    v <- ifelse(is.na(x), "null", ifelse(x, "true", "false"))
  } else if (is.integer(x)) {
    v <- ifelse(is.na(x), "null", as.character(x))
  } else {
    v <- json_num(as.numeric(x))
  }
  if (!is.null(names(x)) && length(x) > 0) {
    return(paste0("{", paste0(vapply(names(x), json_str, ""), ": ", v, collapse = ", "), "}"))
  }
  if (length(v) == 1) return(unname(v))
  paste0("[", paste(unname(v), collapse = ", "), "]")
}

# ---------------------------------------------------------------- helpers
ctrl <- glm.control(epsilon = 1e-14, maxit = 100)
z975 <- qnorm(0.975)
q95 <- qchisq(0.95, 1)
fixed_p <- c(0.05, 0.1, 0.3, 0.5, 0.8)

# glm reports vcov() from the QR of its last IRLS step, whose weights come from the previous
# coefficients (relative error ~1e-8 here). Refitting from the converged coefficients makes the
# covariance (and sandwich's bread and meat) be evaluated at the MLE to ~1e-15.
polish <- function(fit, quiet = FALSE, env = parent.frame()) {
  cl <- getCall(fit)
  cl$start <- unname(coef(fit))
  refit <- if (quiet) suppressWarnings(eval(cl, env)) else eval(cl, env)
  refit$iter_first_fit <- fit$iter
  refit
}

# run an expression, keeping its value and the text of any warnings
with_warnings <- function(expr) {
  w <- character(0)
  val <- withCallingHandlers(expr, warning = function(cond) {
    w <<- c(w, conditionMessage(cond))
    invokeRestart("muffleWarning")
  })
  list(value = val, warnings = as.list(w))  # a list, so the JSON always has an array
}

# covariance matrices get dimnames (intercept, slope) or (intercept)
vnames <- function(V) {
  V <- as.matrix(V)
  d <- c("intercept", "slope")[seq_len(nrow(V))]
  dimnames(V) <- list(d, d)
  V
}

err_summary <- function(fitted, p) {
  e <- abs(fitted - p)
  list(ICI = mean(e), E50 = median(e), E90 = unname(quantile(e, 0.9, type = 7)), Emax = max(e))
}

# exact profile-likelihood interval: roots of dev(theta) - dev_min = qchisq(0.95, 1)
profile_root <- function(devfun, est, se, dev_min) {
  g <- function(t) devfun(t) - dev_min - q95
  lo <- uniroot(g, c(est - 8 * se, est), tol = 1e-13, extendInt = "downX")$root
  hi <- uniroot(g, c(est, est + 8 * se), tol = 1e-13, extendInt = "upX")$root
  c(lower = lo, upper = hi)
}

citl_fit <- function(y, p, weights = NULL) {
  off <- qlogis(p)
  if (is.null(weights)) {
    polish(glm(y ~ 1 + offset(off), family = binomial, control = ctrl))
  } else {
    polish(suppressWarnings(glm(y ~ 1 + offset(off), family = binomial, weights = weights, control = ctrl)),
           quiet = TRUE)
  }
}

citl_block <- function(y, p) {
  fit <- citl_fit(y, p)
  est <- unname(coef(fit))
  se <- sqrt(vcov(fit)[1, 1])
  off <- qlogis(p)
  devfun <- function(a) -2 * sum(dbinom(y, 1, plogis(a + off), log = TRUE))
  prof <- with_warnings(suppressMessages(confint(fit)))
  list(
    model = "glm(y ~ 1 + offset(qlogis(p)), family = binomial, control = glm.control(epsilon = 1e-14, maxit = 100))",
    intercept = est, se = se,
    wald_ci = c(lower = est - z975 * se, upper = est + z975 * se),
    profile_ci_MASS = setNames(unname(prof$value), c("lower", "upper")),
    profile_ci_exact = profile_root(devfun, est, se, deviance(fit)),
    deviance = deviance(fit), null_deviance = fit$null.deviance,
    iterations = c(first_fit = fit$iter_first_fit, refit_from_mle = fit$iter),
    converged = fit$converged
  )
}

recal_block <- function(y, p) {
  x <- qlogis(p)
  fit <- polish(glm(y ~ x, family = binomial, control = ctrl))
  est <- unname(coef(fit))
  V <- vcov(fit)
  se <- sqrt(diag(V))
  prof <- with_warnings(suppressMessages(confint(fit)))
  dev_min <- deviance(fit)
  dev_a <- function(a) deviance(glm(y ~ 0 + x + offset(rep(a, length(y))), family = binomial, control = ctrl))
  dev_b <- function(b) deviance(glm(y ~ 1 + offset(b * x), family = binomial, control = ctrl))
  list(
    model = "glm(y ~ qlogis(p), family = binomial, control = glm.control(epsilon = 1e-14, maxit = 100))",
    intercept = est[1], slope = est[2],
    se_intercept = unname(se[1]), se_slope = unname(se[2]),
    cov_intercept_slope = V[1, 2],
    vcov = matrix(V, 2, 2, dimnames = list(c("intercept", "slope"), c("intercept", "slope"))),
    wald_ci_intercept = c(lower = est[1] - z975 * se[[1]], upper = est[1] + z975 * se[[1]]),
    wald_ci_slope = c(lower = est[2] - z975 * se[[2]], upper = est[2] + z975 * se[[2]]),
    profile_ci_MASS_intercept = setNames(unname(prof$value[1, ]), c("lower", "upper")),
    profile_ci_MASS_slope = setNames(unname(prof$value[2, ]), c("lower", "upper")),
    profile_ci_exact_intercept = profile_root(dev_a, est[1], se[[1]], dev_min),
    profile_ci_exact_slope = profile_root(dev_b, est[2], se[[2]], dev_min),
    deviance = dev_min, null_deviance = fit$null.deviance,
    iterations = c(first_fit = fit$iter_first_fit, refit_from_mle = fit$iter),
    converged = fit$converged
  )
}

spiegelhalter_block <- function(y, p) {
  z <- sum((y - p) * (1 - 2 * p)) / sqrt(sum((1 - 2 * p)^2 * p * (1 - p)))
  list(z = z, p_two_sided = 2 * pnorm(-abs(z)))
}

rcs_block <- function(y, p) {
  x <- qlogis(p)
  res <- list()
  for (nk in 3:5) {
    kw <- with_warnings(rcspline.eval(x, nk = nk, knots.only = TRUE))
    knots <- kw$value
    X <- rcspline.eval(x, knots = knots, inclx = TRUE)  # norm = 2 (default)
    colnames(X) <- paste0("x", c("", strrep("'", seq_len(ncol(X) - 1))))
    fit <- polish(glm(y ~ X, family = binomial, control = ctrl))
    # the same design through rms::rcs (for the record: it calls rcspline.eval with norm = 2)
    X_rms <- unclass(rcs(x, knots))
    design_diff <- max(abs(unname(X_rms[, seq_len(ncol(X))]) - unname(X[, seq_len(ncol(X))])))
    fitted <- unname(fitted(fit))
    Xn <- rcspline.eval(qlogis(fixed_p), knots = knots, inclx = TRUE)
    at_p <- plogis(drop(cbind(1, Xn) %*% coef(fit)))
    cf <- coef(fit)
    names(cf) <- c("(Intercept)", colnames(X))
    res[[as.character(nk)]] <- c(
      list(knots = unname(knots), knot_warnings = kw$warnings,
           normalisation = "norm = 2: nonlinear terms are ((x - t_j)_+^3 - ...)/(t_k - t_1)^2",
           coefficients = cf, n_coefficients = length(cf),
           deviance = deviance(fit), converged = fit$converged,
           max_abs_diff_vs_rms_rcs_design = design_diff),
      err_summary(fitted, p),
      list(fitted_at = setNames(at_p, as.character(fixed_p)))
    )
  }
  res
}

loess_block <- function(y, p) {
  d <- data.frame(y = y, p = p)
  f1 <- with_warnings(loess(y ~ p, data = d))
  f2 <- with_warnings(loess(y ~ p, data = d, control = loess.control(surface = "direct")))
  list(
    settings = "loess(y ~ p): span = 0.75, degree = 2, family = 'gaussian'; fitted values = predict(fit) at the data",
    interpolate = c(err_summary(unname(predict(f1$value)), p), list(warnings = f1$warnings)),
    direct = c(err_summary(unname(predict(f2$value)), p), list(warnings = f2$warnings))
  )
}

val_prob_block <- function(y, p) {
  r <- with_warnings(val.prob(p, y, pl = FALSE))
  list(stats = as.list(r$value), warnings = r$warnings)
}

make_case <- function(y, p, note = NULL) {
  n0 <- sum(p == 0)
  n1 <- sum(p == 1)
  open <- n0 == 0 && n1 == 0
  ybar <- mean(y)
  brier <- mean((y - p)^2)
  case <- list(
    note = note,
    n = length(y), n_events = sum(y), n_p_equal_0 = n0, n_p_equal_1 = n1,
    n_p0_with_event = sum(p == 0 & y == 1), n_p1_without_event = sum(p == 1 & y == 0),
    val_prob = val_prob_block(y, p),
    spiegelhalter = spiegelhalter_block(y, p),
    brier = brier,
    scaled_brier = 1 - brier / (ybar * (1 - ybar)),
    oe = sum(y) / sum(p),
    loess = loess_block(y, p)
  )
  if (open) {
    for (blk in c("citl", "recalibration", "rcs")) {
      fun <- switch(blk, citl = citl_block, recalibration = recal_block, rcs = rcs_block)
      r <- with_warnings(fun(y, p))
      case[[blk]] <- c(r$value, list(warnings = unique(r$warnings)))
    }
  } else {
    case$not_computed <- "citl, recalibration and rcs need qlogis(p), which is infinite at p = 0 or 1; see the open_subset case"
  }
  case
}

weighted_block <- function(d, score) {
  y <- d$y
  p <- d[[score]]
  w <- d$w
  x <- qlogis(p)
  dd <- data.frame(y = y, x = x, w = w, site = d$site)
  f_citl <- polish(suppressWarnings(glm(y ~ 1 + offset(x), family = binomial, weights = w, data = dd, control = ctrl)),
                   quiet = TRUE)
  f_rec <- polish(suppressWarnings(glm(y ~ x, family = binomial, weights = w, data = dd, control = ctrl)),
                  quiet = TRUE)
  res <- list(
    note = "glm(..., weights = w), binomial; R's non-integer-weight warning suppressed; model-based SEs use dispersion 1",
    citl = list(intercept = unname(coef(f_citl)), se = sqrt(vcov(f_citl)[1, 1])),
    recalibration = list(intercept = unname(coef(f_rec)[1]), slope = unname(coef(f_rec)[2]),
                         vcov = vnames(vcov(f_rec))),
    brier = sum(w * (y - p)^2) / sum(w),
    oe = sum(w * y) / sum(w * p)
  )
  if (have_sandwich) {
    res$recalibration$vcovHC_HC0 <- vnames(sandwich::vcovHC(f_rec, type = "HC0"))
    res$recalibration$vcovCL_site_HC0_nocadjust <-
      vnames(sandwich::vcovCL(f_rec, cluster = ~site, type = "HC0", cadjust = FALSE))
    res$recalibration$vcovCL_site_defaults <- vnames(sandwich::vcovCL(f_rec, cluster = ~site))
  }
  res
}

robust_block <- function(d, score) {
  dd <- data.frame(y = d$y, x = qlogis(d[[score]]), site = d$site)
  f_citl <- polish(glm(y ~ 1 + offset(x), family = binomial, data = dd, control = ctrl))
  f_rec <- polish(glm(y ~ x, family = binomial, data = dd, control = ctrl))
  one <- function(f) list(
    model_vcov = vnames(vcov(f)),
    vcovHC_HC0 = vnames(sandwich::vcovHC(f, type = "HC0")),
    vcovCL_site_HC0_nocadjust = vnames(sandwich::vcovCL(f, cluster = ~site, type = "HC0", cadjust = FALSE)),
    vcovCL_site_defaults = vnames(sandwich::vcovCL(f, cluster = ~site))
  )
  list(
    note = paste("unweighted fits, cluster = site (6 clusters). vcovCL defaults for a glm: type = 'HC0',",
                 "cadjust = TRUE (meat times G/(G-1)), no n/(n-k) factor. Matrices are lists of rows",
                 "with row and column names."),
    citl = one(f_citl),
    recalibration = one(f_rec)
  )
}

per_site_block <- function(d, score) {
  res <- list()
  for (s in sort(unique(d$site))) {
    ds <- d[d$site == s, ]
    y <- ds$y
    p <- ds[[score]]
    x <- qlogis(p)
    f <- polish(glm(y ~ x, family = binomial, control = ctrl))
    se <- sqrt(diag(vcov(f)))
    res[[s]] <- list(n = length(y), n_events = sum(y),
                     intercept = unname(coef(f)[1]), slope = unname(coef(f)[2]),
                     se_intercept = unname(se[1]), se_slope = unname(se[2]),
                     brier = mean((y - p)^2), oe = sum(y) / sum(p))
  }
  res
}

# ---------------------------------------------------------------- simulated data
set.seed(20261126)
n_sim <- 600
sites <- LETTERS[1:6]
site <- rep(sites, each = 100)
site_effect <- rnorm(6, 0, 0.4)
x_sim <- rnorm(n_sim)
true_risk <- plogis(-1.5 + 0.8 * x_sim + site_effect[match(site, sites)])
y_sim <- rbinom(n_sim, 1, true_risk)
p_sim <- plogis(-1.2 + 1.1 * x_sim)
w_sim <- round(runif(n_sim, 0.5, 3), 3)
p_tied <- pmin(pmax(round(p_sim, 2), 0.01), 0.99)
sim_out <- data.frame(site = site, y = y_sim,
                      p = sprintf("%.17g", p_sim), w = sprintf("%.17g", w_sim),
                      p_tied = sprintf("%.17g", p_tied))
write.csv(sim_out, csv_path, row.names = FALSE, quote = FALSE)
sim <- read.csv(csv_path, stringsAsFactors = FALSE)
stopifnot(identical(sim$p, p_sim), identical(sim$w, w_sim), identical(sim$p_tied, p_tied),
          identical(sim$y, y_sim))

# ---------------------------------------------------------------- breast cancer data
bc <- read.csv(file.path("data", "breast_cancer_oof.csv"), stringsAsFactors = FALSE)

cases <- list()
for (score in c("logistic", "forest")) {
  y <- bc$malignant
  p <- bc[[score]]
  cases[[paste0("breast_cancer/", score)]] <- make_case(
    y, p, note = "all rows, including probabilities of exactly 0 or 1")
  keep <- p > 0 & p < 1
  cases[[paste0("breast_cancer/", score, "/open_subset")]] <- make_case(
    y[keep], p[keep], note = sprintf("only the %d rows with 0 < %s < 1", sum(keep), score))
}
for (score in c("p", "p_tied")) {
  key <- paste0("sim/", score)
  cases[[key]] <- make_case(sim$y, sim[[score]], note = "tests/reference/calibration_data.csv")
  cases[[key]]$weighted <- weighted_block(sim, score)
  if (have_sandwich) cases[[key]]$robust_vcov <- robust_block(sim, score)
}
cases[["sim/p"]]$per_site <- per_site_block(sim, "p")

# ---------------------------------------------------------------- check of val.prob's D (documented below)
chk <- with(cases[["sim/p"]], {
  lg <- qlogis(sim$p)
  L01 <- -2 * sum(sim$y * lg - log1p(exp(lg)))
  L0 <- -2 * sum(dbinom(sim$y, 1, mean(sim$y), log = TRUE))
  c(L0_minus_L01 = L0 - L01, val_prob_D_chisq = val_prob$stats[["D:Chi-sq"]])
})

val_prob_definitions <- list(
  source = "body of rms::val.prob printed from rms 6.5-0",
  smoothed_errors = paste(
    "Sm <- lowess(p, y, iter = 0) with lowess's other defaults (f = 2/3, delta = 0.01 * diff(range(p)));",
    "all rows are used, including p = 0 or 1. cal.smooth <- approx(Sm, xout = p, ties = mean)$y, i.e. the",
    "lowess curve read off (linear interpolation between lowess's sorted output points, tied p averaged)",
    "at every observed p. er <- abs(p - cal.smooth); Eavg = mean(er), Emax = max(er),",
    "E90 = quantile(er, 0.9) (type 7). Emax is over the observed p, not a grid: emax.lim and predprob are",
    "unused in this version."),
  intercept_slope = paste(
    "Rows whose logit(p) is infinite (p = 0 or 1) are dropped, with a warning. f.recal <- lrm.fit(logit, y):",
    "maximum-likelihood logistic regression of y on logit(p); Intercept and Slope are its two coefficients",
    "(same model as glm(y ~ qlogis(p), binomial), converged to lrm.fit's default tolerances, so agreement",
    "with glm is to about 1e-7 or better)."),
  other_stats = paste(
    "Dxy, C (ROC), R2 come from lrm.fit(logit, y, initial = c(0, 1), maxit = 1) on the finite-logit rows",
    "(C = concordance of p with y, Dxy = 2C - 1, R2 = Nagelkerke R2 of the fixed model intercept 0,",
    "slope 1). D:Chi-sq = -2LL(intercept only) - (-2LL(p as given)) on the finite-logit rows, D = (D:Chi-sq - 1)/n,",
    "D:p is NA. U:Chi-sq = L01 - deviance of f.recal (2 df), U = (U:Chi-sq - 2)/n, Q = D - U, where",
    "L01 = -2 * sum(y * logit - log(1 + exp(logit)), na.rm = TRUE) over ALL rows: a row with p = 1 gives NaN",
    "(dropped, whatever y is) and a row with p = 0 and y = 1 gives Inf, so U, U:Chi-sq, Q become Inf/-Inf.",
    "n in D and U is the number of finite-logit rows.",
    "Brier = mean((p - y)^2) over all rows. S:z, S:p = Spiegelhalter z = sum((y - p)(1 - 2p)) /",
    "sqrt(sum((1 - 2p)^2 p (1 - p))) over all rows and its two-sided normal p-value."),
  check_D_chisq_sim_p = chk
)

knot_rule <- paste(
  "Hmisc::rcspline.eval(x, nk, knots.only = TRUE): quantile(x, seq(outer, 1 - outer, length = nk)) (type 7) with",
  "outer = 0.10 for nk = 3, 0.05 for nk 4-6, 0.025 for nk > 6. If fewer than 100 non-missing x, the first and",
  "last knots are replaced by the 5th smallest and 5th largest x. If nk >= (number of unique x) - 2, the knots",
  "are all unique x except the min and max. fractied = 0.05: if no interior value holds >= 5% of x but the",
  "smallest (largest) value does, that end knot is the second smallest (largest) unique value and the other",
  "knots are taken from the x beyond it. Knots are then sort(unique(.)).")

result <- list(
  r_version = R.version.string,
  packages = list(rms = as.character(packageVersion("rms")), Hmisc = as.character(packageVersion("Hmisc")),
                  sandwich = if (have_sandwich) as.character(packageVersion("sandwich")) else NULL,
                  MASS = as.character(packageVersion("MASS")), stats = as.character(packageVersion("stats"))),
  data = list(breast_cancer = "data/breast_cancer_oof.csv (outcome malignant)",
              sim = "tests/reference/calibration_data.csv, written by this script with set.seed(20261126)"),
  notes = list(
    profile_ci_MASS = paste("confint(fit) on a glm: MASS's profile-likelihood interval, found by spline",
                            "interpolation on a profile grid, so it is accurate only to about 1e-4"),
    profile_ci_exact = "uniroot (tol 1e-13) on deviance(theta) - deviance_min = qchisq(0.95, 1), the other parameter re-fitted",
    glm_fits = paste("every glm is fitted with glm.control(epsilon = 1e-14, maxit = 100) and then refitted",
                     "with start = its coefficients, so vcov() and sandwich matrices are evaluated at the MLE"),
    wald_ci = "estimate -/+ qnorm(0.975) * SE, SE from vcov(glm fit) (observed = expected information for logit link)",
    rcs = paste("glm(y ~ X, binomial) with X = Hmisc::rcspline.eval(qlogis(p), knots = knots, inclx = TRUE),",
                "default norm = 2 (the same design rms::rcs(x, knots) makes); ICI/E50/E90/Emax are over",
                "|fitted - p| at the data; fitted_at = calibrated probability at the listed p"),
    rcs_knot_rule = knot_rule,
    loess = "Austin & Steyerberg (2019) ICI: loess(y ~ p) fitted at the data; ICI = mean, E50 = median, E90 = quantile(type 7, 0.9), Emax = max of |fitted - p|"
  ),
  val_prob_definitions = val_prob_definitions,
  cases = cases
)

writeLines(to_json(result), json_path)
