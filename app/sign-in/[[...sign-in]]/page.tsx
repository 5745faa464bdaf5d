import { SignIn } from "@clerk/nextjs";
import { clerkPublishableKey, MaybeClerk, NotConfigured } from "../../dashboard/ui/clerk";

export const dynamic = "force-dynamic";
export const metadata = { title: "Sign in" };

export default function SignInPage() {
  if (!clerkPublishableKey()) return <NotConfigured />;
  return (
    <MaybeClerk>
      <main className="center">
        <SignIn path="/sign-in" routing="path" signUpUrl="/sign-up" fallbackRedirectUrl="/dashboard" />
      </main>
    </MaybeClerk>
  );
}
