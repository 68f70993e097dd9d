main :: IO ()
main = do
  [a, b] <- map read . words <$> getLine :: IO [Integer]
  error ("no answer for " ++ show (a + b))
