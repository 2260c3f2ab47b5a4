# Reference numbers from R's metafor for random-effects pooling of per-site estimates
# (think logit AUROC values yi with sampling variances vi).
#
# Regenerate (from the repository root):
#   Rscript tests/reference/metafor_reference.R
# It writes tests/reference/metafor_reference.json. Numbers are written with 17 significant digits
# (sprintf("%.17g"), passed to jsonlite as verbatim JSON: jsonlite 1.8.4 itself stops at 15 digits
# even with digits = I(17)); NA / NaN / Inf are written as null.
#
# Produced with R 4.2.2 Patched (2022-11-10 r83330), metafor 3.8-1 and jsonlite 1.8.4, from the
# Debian 12 packages r-base-core, r-cran-metafor and r-cran-jsonlite (versions are also in the JSON).
#
# Datasets: simulated with set.seed(20240611) (k5, k12, k30) plus hand-written edge cases
# (homogeneous, k2, k3_unequal). For each dataset, method in REML / DL / PM and test in z / knha:
#   fit <- rma(yi, vi, method = M, test = T, control = CTRL)
# with CTRL = list(threshold = 1e-12, maxiter = 10000, tol = 1e-13):
#   threshold / maxiter: REML Fisher scoring stops when |tau2_new - tau2_old| < threshold;
#   tol / maxiter: uniroot() tolerance for PM (the default tol = eps^0.25 ~ 1.2e-4 is coarse).
#   tau2.min is left at its default 0 (estimates truncated at 0).
# Recorded per fit: beta, se, ci.lb, ci.ub, zval (t value under knha), pval, tau2, se.tau2,
# I2 (percent), H2, QE, QEp, k, ddf (k - 1 under knha, null under z), s2w (Knapp-Hartung scale
# factor, 1 under z), vt (typical within-study variance used by I2 / H2), weights (percent),
# predict(fit) (pred, se, ci.lb, ci.ub, pi.lb, pi.ub; metafor 3.8 names them pi.*, older cr.*)
# plus predict(fit, pi.type = "riley") (t with k - 2 df), and
# confint(fit, control = list(tol = 1e-13, maxiter = 10000)) rows tau^2, tau, I^2(%), H^2
# (estimate, ci.lb, ci.ub; Q-profile) with ci.null / lb.sign / ub.sign.
# leave1out(fit) for k5 and k12 with (REML, knha) and (DL, z): every column.
#
# What metafor 3.8-1 computes (read from metafor:::rma.uni, predict.rma, confint.rma.uni):
#   w_i = 1 / (vi + tau2); beta = sum(w y) / sum(w); se = sqrt(1 / sum(w)).
#   knha: s2w = sum(w (y - beta)^2) / (k - 1) (NOT truncated at 1; s2w = 0 if that sum <= eps);
#         se = sqrt(s2w / sum(w)); t-quantile with ddf = k - 1.
#   QE = sum(v_i^-1 (y - beta_FE)^2) (fixed-effect weights 1/vi); QEp = pchisq(QE, k - 1, upper).
#   vt = (k - 1) / tr(P), P = W - W 1 1' W / sum(W), W = diag(1/vi), i.e.
#        vt = (k - 1) sum(1/vi) / ((sum(1/vi))^2 - sum(1/vi^2))  (Higgins & Thompson 2002);
#   I2 = 100 tau2 / (vt + tau2); H2 = 1 + tau2 / vt -- for every RE method (REML, DL, PM alike).
#   se.tau2: DL sqrt((2 (k-1) + 4 tau2 trP + 2 tau2^2 sum(P*P)) / trP^2) with P on 1/vi weights;
#            REML sqrt(2 / sum(P*P)) with P on 1/(vi + tau2) weights;
#            PM sqrt(2 k^2 / (k - 1) / sum(w)^2) with w = 1/(vi + tau2).
#   predict: pi = beta -/+ crit * sqrt(se^2 + tau2), crit = the same quantile as the CI:
#            qnorm under z, qt(., k - 1) under knha (se being the KH-scaled se).
#            pi.type = "riley": qt(., k - 2) (clamped to df >= 1).
#   confint (type "QP"): tau2 CI = {tau2 : qchisq(.025, k-1) <= Q_gen(tau2) <= qchisq(.975, k-1)},
#            Q_gen(tau2) = sum((y - beta(tau2))^2 / (vi + tau2)) with beta(tau2) the RE mean at tau2.
#            lower = root of Q_gen = qchisq(.975), or 0 if Q_gen(0) < qchisq(.975);
#            upper = root of Q_gen = qchisq(.025), or both 0 (ci.null) if Q_gen(0) < qchisq(.025).
#            The I2 / H2 rows map the tau2 bounds through the same vt.
suppressMessages({
  library(metafor)
  library(jsonlite)
})

num <- function(x) {
  x <- unname(as.numeric(x))
  x[!is.finite(x)] <- NA
  x
}

set.seed(20240611)
sim <- function(k, mu, tau, vlo, vhi) {
  vi <- runif(k, vlo, vhi)
  yi <- rnorm(k, mu, sqrt(tau^2 + vi))
  list(yi = yi, vi = vi)
}
datasets <- list(
  k5 = c(sim(5, 1.6, 0.25, 0.01, 0.05), description = "5 sites, moderate heterogeneity (simulated, tau = 0.25)"),
  k12 = c(sim(12, 1.8, 0.4, 0.01, 0.08), description = "12 sites, strong heterogeneity (simulated, tau = 0.4)"),
  k30 = c(sim(30, 1.5, 0.2, 0.005, 0.1), description = "30 sites (simulated, tau = 0.2)"),
  homogeneous = list(yi = c(1.500, 1.503, 1.498, 1.501, 1.497, 1.502),
                     vi = c(0.030, 0.025, 0.040, 0.035, 0.020, 0.045),
                     description = "6 sites with nearly equal yi: QE < k - 1, tau2 truncated at 0"),
  k2 = list(yi = c(1.2, 1.9), vi = c(0.04, 0.06), description = "2 sites"),
  k3_unequal = list(yi = c(1.8, 1.3, 2.4), vi = c(0.001, 0.05, 0.3),
                    description = "3 sites with very different sampling variances")
)

ctrl <- list(threshold = 1e-12, maxiter = 10000, tol = 1e-13)
ci_ctrl <- list(tol = 1e-13, maxiter = 10000)

fit_summary <- function(fit) {
  list(beta = num(fit$beta), se = num(fit$se), ci.lb = num(fit$ci.lb), ci.ub = num(fit$ci.ub),
       zval = num(fit$zval), pval = num(fit$pval), tau2 = num(fit$tau2), se.tau2 = num(fit$se.tau2),
       I2 = num(fit$I2), H2 = num(fit$H2), QE = num(fit$QE), QEp = num(fit$QEp), k = fit$k,
       ddf = num(fit$ddf), s2w = num(fit$s2w), vt = num(fit$vt), weights_percent = num(weights(fit)))
}

pred_summary <- function(p) {
  out <- list(pred = num(p$pred), se = num(p$se), ci.lb = num(p$ci.lb), ci.ub = num(p$ci.ub))
  lb <- if (!is.null(p$pi.lb)) p$pi.lb else p$cr.lb
  ub <- if (!is.null(p$pi.ub)) p$pi.ub else p$cr.ub
  out$pi.lb <- num(lb)
  out$pi.ub <- num(ub)
  out
}

confint_summary <- function(fit) {
  ci <- try(suppressWarnings(confint(fit, control = ci_ctrl)), silent = TRUE)
  if (inherits(ci, "try-error")) return(NULL)
  r <- ci$random
  row <- function(name) {
    if (!(name %in% rownames(r))) return(NULL)
    list(estimate = num(r[name, "estimate"]), ci.lb = num(r[name, "ci.lb"]), ci.ub = num(r[name, "ci.ub"]))
  }
  list(tau2 = row("tau^2"), tau = row("tau"), I2 = row("I^2(%)"), H2 = row("H^2"),
       ci.null = ci$ci.null, lb.sign = ci$lb.sign, ub.sign = ci$ub.sign)
}

l1o_summary <- function(fit) {
  l <- unclass(leave1out(fit))
  cols <- setdiff(names(l), c("slab", "digits", "transf"))
  out <- lapply(l[cols], num)
  out$columns <- cols
  out
}

# numbers as "%.17g" verbatim JSON (length-1 vectors as scalars), non-finite as null
as_json17 <- function(x) {
  if (is.list(x)) return(lapply(x, as_json17))
  if (!is.numeric(x)) return(x)
  items <- ifelse(is.finite(x), sprintf("%.17g", x), "null")
  if (length(x) == 1L) structure(items, class = "json")
  else structure(paste0("[", paste(items, collapse = ", "), "]"), class = "json")
}

cases <- list()
for (dname in names(datasets)) {
  d <- datasets[[dname]]
  fits <- list()
  for (method in c("REML", "DL", "PM")) {
    for (test in c("z", "knha")) {
      key <- paste0(method, "_", test)
      fit <- try(rma(d$yi, d$vi, method = method, test = test, control = ctrl), silent = TRUE)
      if (inherits(fit, "try-error")) {
        fits[[key]] <- list(method = method, test = test, error = as.character(fit))
        next
      }
      entry <- c(list(method = method, test = test), fit_summary(fit))
      entry$predict <- pred_summary(predict(fit))
      entry$predict_riley <- pred_summary(predict(fit, pi.type = "riley"))
      entry$confint <- confint_summary(fit)
      if (dname %in% c("k5", "k12") && key %in% c("REML_knha", "DL_z")) {
        entry$leave1out <- l1o_summary(fit)
      }
      fits[[key]] <- entry
    }
  }
  cases[[dname]] <- list(description = d$description, yi = num(d$yi), vi = num(d$vi), fits = fits)
}

out <- list(
  r_version = R.version.string,
  metafor_version = as.character(packageVersion("metafor")),
  jsonlite_version = as.character(packageVersion("jsonlite")),
  seed = 20240611,
  control = ctrl,
  confint_control = ci_ctrl,
  level = 95,
  datasets = cases
)
writeLines(toJSON(as_json17(out), auto_unbox = TRUE, json_verbatim = TRUE, null = "null", pretty = TRUE),
           "tests/reference/metafor_reference.json")
