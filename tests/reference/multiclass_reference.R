# Reference numbers from R's pROC for multiclass AUROC (multiclass.roc).
#
# Regenerate (from the repository root):
#   Rscript tests/reference/multiclass_reference.R
# Reads tests/reference/multiclass_data_<name>.csv and writes tests/reference/multiclass_reference.json.
#
# Data sets (column y = class label; p_<label> = one model's class probabilities, q_<label> = a second
# model's, where present):
#   k3_balanced    K = 3, labels "a","b","c", 20/20/20, models p and q
#   k4_imbalanced  K = 4, integer labels 1..4, 40/15/8/5, models p and q
#   k5_ties        K = 5, labels "a".."e", 20 each, probabilities rounded to 1 decimal (heavy ties;
#                  rows do not sum to 1 exactly and were not renormalised), model p
#   k3_separated   K = 3, integer labels 1..3, 15 each; class 3 perfectly separated by p_3, model p
#   iris           datasets::iris, p_<species> = fitted(nnet::multinom(Species ~ Sepal.Length +
#                  Sepal.Width, maxit = 1000)), model p
# The four simulated sets come from latent logits z[i, k] = signal * 1[y_i == k] + offset_k + N(0, 1),
# p = softmax(z), with fixed seeds (set.seed 101, 202, 303, 404); the CSVs are the source of truth.
#
# For every data set and model:
#   multivariate: multiclass.roc(y, M) with M = the p_ (or q_) columns as a numeric matrix whose column
#     names are the level labels (e.g. "a","b","c" or "1","2","3"), direction left at its default.
#   univariate:   multiclass.roc(y, P) with P = the single column p_<last level> (q_<last level>).
# Recorded: the overall auc, and for every pair of levels the AUC of every roc object pROC stores in
# $rocs, with its control level, case level, direction, predictor column and group sizes. The script
# checks that each stored roc's controls / cases are exactly the predicted values it claims.
#
# Numbers are written with 17 significant digits (sprintf("%.17g"), inserted verbatim): jsonlite
# 1.8.4's toJSON(digits = NA) stops at 15 significant digits.
suppressMessages({
  library(pROC)
  library(jsonlite)
})

num <- function(x) {
  stopifnot(length(x) == 1)
  if (is.na(x)) return(NULL)
  structure(sprintf("%.17g", as.numeric(x)), class = "json")
}

same_values <- function(a, b) length(a) == length(b) && identical(sort(unname(a)), sort(unname(b)))

dir_text <- c("<" = "controls < cases (a higher predictor means the case level)",
              ">" = "controls > cases (a higher predictor means the control level)")

datasets <- list(
  k3_balanced   = c("p", "q"),
  k4_imbalanced = c("p", "q"),
  k5_ties       = c("p"),
  k3_separated  = c("p"),
  iris          = c("p")
)

multivariate_case <- function(y, df, model, levs) {
  cols <- paste0(model, "_", levs)
  M <- as.matrix(df[, cols])
  colnames(M) <- levs
  mc <- multiclass.roc(y, M)
  stopifnot(inherits(mc, "mv.multiclass.roc"), identical(mc$levels, levs))
  pairs <- lapply(names(mc$rocs), function(pair) {
    ij <- strsplit(pair, "/", fixed = TRUE)[[1]]
    two <- mc$rocs[[pair]]
    entries <- lapply(1:2, function(k) {
      r <- two[[k]]
      col_level <- ij[k]                 # compute.pair.AUC(predictor, i, j): column i
      other <- ij[3 - k]
      control <- as.character(r$levels[1])
      case <- as.character(r$levels[2])
      stopifnot(control == col_level, case == other,
                same_values(r$controls, M[y == control, col_level]),
                same_values(r$cases, M[y == case, col_level]))
      list(index = k,
           predictor_column = paste0(model, "_", col_level),
           control = control, case = case,
           direction = r$direction, direction_meaning = unname(dir_text[r$direction]),
           n_controls = length(r$controls), n_cases = length(r$cases),
           auc = num(auc(r)))
    })
    aucs <- sapply(two, function(r) as.numeric(auc(r)))
    list(pair = pair, level_i = ij[1], level_j = ij[2], rocs = entries, mean_auc = num(mean(aucs)))
  })
  list(call = sprintf("multiclass.roc(y, M), M = as.matrix(df[, c(%s)]) with colnames(M) <- c(%s)",
                      paste0("\"", cols, "\"", collapse = ", "), paste0("\"", levs, "\"", collapse = ", ")),
       levels = mc$levels, auc = num(mc$auc), pairs = pairs)
}

univariate_case <- function(y, df, model, levs) {
  col <- paste0(model, "_", levs[length(levs)])
  x <- df[[col]]
  mc <- suppressMessages(multiclass.roc(y, x))
  stopifnot(inherits(mc, "multiclass.roc"), identical(as.character(mc$levels), levs))
  lev_pairs <- utils::combn(levs, 2, simplify = FALSE)
  stopifnot(length(lev_pairs) == length(mc$rocs))
  pairs <- lapply(seq_along(mc$rocs), function(k) {
    r <- mc$rocs[[k]]
    control <- as.character(r$levels[1])
    case <- as.character(r$levels[2])
    stopifnot(control == lev_pairs[[k]][1], case == lev_pairs[[k]][2],
              same_values(r$controls, x[y == control]), same_values(r$cases, x[y == case]))
    list(pair = paste(control, case, sep = "/"), control = control, case = case,
         predictor_column = col,
         direction = r$direction, direction_meaning = unname(dir_text[r$direction]),
         median_controls = num(median(r$controls)), median_cases = num(median(r$cases)),
         n_controls = length(r$controls), n_cases = length(r$cases),
         auc = num(auc(r)))
  })
  list(call = sprintf("multiclass.roc(y, df[[\"%s\"]])", col), predictor_column = col,
       levels = as.character(mc$levels), auc = num(mc$auc), pairs = pairs)
}

out_sets <- list()
for (name in names(datasets)) {
  file <- file.path("tests", "reference", paste0("multiclass_data_", name, ".csv"))
  df <- read.csv(file)                   # y: integer for integer labels, character for strings
  y <- df$y
  levs <- levels(as.factor(y))           # multiclass.roc's default levels
  row_sums <- rowSums(as.matrix(df[, paste0("p_", levs)]))
  max_dev <- max(abs(row_sums - 1))
  models <- list()
  for (model in datasets[[name]]) {
    models[[model]] <- list(multivariate = multivariate_case(y, df, model, levs),
                            univariate = univariate_case(y, df, model, levs))
  }
  counts <- table(factor(y, levels = levs))
  out_sets[[name]] <- list(
    file = file, n = nrow(df), label_type = if (is.numeric(y)) "integer" else "string",
    levels = levs, class_counts = as.list(setNames(as.integer(counts), levs)),
    columns = names(df),
    rows_sum_to_one = max_dev < 1e-12, max_abs_row_sum_minus_one_p = num(max_dev),
    models = models)
}

out <- list(
  generated_by = "Rscript tests/reference/multiclass_reference.R",
  versions = list(R = R.version.string, pROC = as.character(packageVersion("pROC")),
                  jsonlite = as.character(packageVersion("jsonlite")),
                  nnet = as.character(packageVersion("nnet"))),
  definitions = list(
    multivariate = paste(
      "For each unordered pair of levels (i, j), i before j in the matrix column order (= level order here),",
      "pROC stores rocs[['i/j']] = list(A1, A2): A1 = roc on column i with control level i (its rows' column-i",
      "values) and case level j (column-i values of class-j rows), direction '>'; A2 = the same with i and j",
      "swapped (column j, control j, case i, direction '>'). With direction '>' the AUC is",
      "P(control value > case value) + 0.5 P(tie), i.e. A1 = A(i|j) and A2 = A(j|i) of Hand & Till (2001).",
      "auc = 2 / (K (K - 1)) * sum over pairs of (A1 + A2) / 2."),
    univariate = paste(
      "For each pair (i, j) of levels (combn order), roc(y, x, levels = c(i, j), direction = 'auto'):",
      "control level i, case level j, only rows of classes i and j; direction '<' if",
      "median(controls) <= median(cases), else '>'; auc = mean of the pairwise AUCs."),
    number_format = "17 significant digits"),
  datasets = out_sets)

json <- toJSON(out, auto_unbox = TRUE, pretty = TRUE, json_verbatim = TRUE, digits = NA)
writeLines(json, file.path("tests", "reference", "multiclass_reference.json"))
cat("wrote tests/reference/multiclass_reference.json\n")
